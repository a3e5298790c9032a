"""`meadow-mind serve` driven by the official `openai` Python client (pinned in
python/requirements-dev.txt): 16 threads send a mix of valid and invalid requests through the
client's own request building and response parsing; every valid answer must equal what
`meadow-mind generate` prints for the same prompt, every invalid one must raise the client's
4xx error, and the server must be healthy after.

    MEADOW_CLI=build/meadow-mind .venv-py/bin/python -m unittest tests/server/test_openai_client.py
"""

import json
import os
import subprocess
import sys
import tempfile
import threading
import unittest
import urllib.request

import openai

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.environ.get("MEADOW_CLI", os.path.join(ROOT, "build", "meadow-mind"))
ENV = {k: v for k, v in os.environ.items() if k != "MEADOW_MIND_MODEL"}


def cli_generate(model, prompt, max_tokens):
    out = subprocess.run(
        [CLI, "generate", "--model", model, "--prompt", prompt, "--max-tokens", str(max_tokens), "--json"],
        env=ENV,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(out)


class OpenAIClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.model = os.path.join(cls.tmp.name, "fixture.gguf")
        # Debian's python3 has the fixture writer's numpy; this venv need not.
        subprocess.run(
            [
                "/usr/bin/python3",
                os.path.join(ROOT, "tests/decision/make_train_fixture.py"),
                "--out",
                cls.model,
            ],
            check=True,
        )
        cls.server = subprocess.Popen(
            [
                CLI,
                "serve",
                "--model",
                cls.model,
                "--port",
                "0",
                "--quiet",
                "--workers",
                "4",
                "--queue",
                "64",
                "--model-id",
                "fixture",
            ],
            env=ENV,
            stdout=subprocess.PIPE,
            text=True,
        )
        line = cls.server.stdout.readline()  # "listening on http://127.0.0.1:PORT (model ...)"
        if not line.startswith("listening on "):
            cls.server.kill()
            raise RuntimeError("serve did not start: " + line)
        cls.base = line.split()[2]
        cls.client = openai.OpenAI(base_url=cls.base + "/v1", api_key="unused", max_retries=0, timeout=60)

    @classmethod
    def tearDownClass(cls):
        cls.server.terminate()  # SIGTERM: the server stops cleanly and exits 0
        rc = cls.server.wait(timeout=30)
        cls.server.stdout.close()
        cls.tmp.cleanup()
        if rc != 0:
            raise RuntimeError(f"serve exited {rc} on SIGTERM")

    def health(self):
        with urllib.request.urlopen(self.base + "/health", timeout=10) as r:
            return json.load(r)

    def test_models(self):
        ids = [m.id for m in self.client.models.list()]
        self.assertEqual(ids, ["fixture"])
        self.assertEqual(self.client.models.retrieve("fixture").id, "fixture")
        with self.assertRaises(openai.NotFoundError):
            self.client.models.retrieve("other")

    def test_chat_and_stream_equal_generate(self):
        want = cli_generate(self.model, "Say hello.", 8)
        r = self.client.chat.completions.create(
            model="fixture", messages=[{"role": "user", "content": "Say hello."}], max_tokens=8
        )
        self.assertEqual(r.choices[0].message.content, want["text"])
        self.assertEqual(r.choices[0].finish_reason, want["finish_reason"])
        self.assertEqual(r.usage.prompt_tokens, want["prompt_tokens"])
        self.assertEqual(r.usage.completion_tokens, want["completion_tokens"])
        stream = self.client.chat.completions.create(
            model="fixture",
            messages=[{"role": "user", "content": "Say hello."}],
            max_tokens=8,
            stream=True,
            stream_options={"include_usage": True},
        )
        text, finish, usage = "", None, None
        for chunk in stream:
            if chunk.usage:
                usage = chunk.usage
            for c in chunk.choices:
                text += c.delta.content or ""
                finish = c.finish_reason or finish
        self.assertEqual(text, want["text"])
        self.assertEqual(finish, want["finish_reason"])
        self.assertEqual(usage.total_tokens, r.usage.total_tokens)

    def test_n_choices_each_with_its_own_seed(self):
        msgs = [{"role": "user", "content": "Say hello."}]
        args = dict(model="fixture", messages=msgs, max_tokens=8, temperature=1.0)
        r = self.client.chat.completions.create(n=3, seed=5, **args)
        self.assertEqual([c.index for c in r.choices], [0, 1, 2])
        for i, c in enumerate(r.choices):
            one = self.client.chat.completions.create(n=1, seed=5 + i, **args)
            self.assertEqual(c.message.content, one.choices[0].message.content)
        texts = {}
        for chunk in self.client.chat.completions.create(n=3, seed=5, stream=True, **args):
            for c in chunk.choices:
                texts[c.index] = texts.get(c.index, "") + (c.delta.content or "")
        self.assertEqual([texts[i] for i in range(3)], [c.message.content for c in r.choices])

    def test_tools_answer_with_a_tool_call(self):
        tools = [
            {
                "type": "function",
                "function": {
                    "name": "read_file",
                    "description": "read a file and show its contents",
                    "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
                },
            },
            {
                "type": "function",
                "function": {
                    "name": "run_bash",
                    "description": "run a shell command",
                    "parameters": {"type": "object", "properties": {"command": {"type": "string"}}},
                },
            },
        ]
        r = self.client.chat.completions.create(
            model="fixture",
            messages=[{"role": "user", "content": 'List the files, then "cat" a\\b.'}],
            tools=tools,
            tool_choice={"type": "function", "function": {"name": "run_bash"}},
        )
        c = r.choices[0]
        self.assertEqual(c.finish_reason, "tool_calls")
        self.assertIsNone(c.message.content)
        (call,) = c.message.tool_calls
        self.assertEqual(call.type, "function")
        self.assertEqual(call.function.name, "run_bash")
        args = json.loads(call.function.arguments)  # always parses: the scaffold is fixed
        self.assertEqual(list(args), ["command"])
        self.assertIsInstance(args["command"], str)
        with self.assertRaises(openai.BadRequestError):
            self.client.chat.completions.create(
                model="fixture",
                messages=[{"role": "user", "content": "hi"}],
                tools=tools,
                tool_choice={"type": "function", "function": {"name": "delete_everything"}},
            )

    def test_sixteen_threads_mixed(self):
        want = cli_generate(self.model, "Say hello.", 8)["text"]
        msgs = [{"role": "user", "content": "Say hello."}]
        bad = [
            dict(messages=msgs, temperature=5),
            dict(messages=msgs, max_tokens=0),
            dict(messages=[], max_tokens=8),
            dict(messages=msgs, n=17),
            dict(messages=msgs, tools=[{"type": "function", "function": {"name": "f"}}]),
            dict(messages=msgs, tool_choice="auto"),
            dict(messages=msgs, stop=[""]),
            dict(messages=msgs, extra_body={"block_size": 0}),
            dict(messages=[{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}]),
        ]
        failures, counts = [], {"ok": 0, "refused": 0}
        lock = threading.Lock()

        def client_thread(t):
            for i in range(20):
                k = (t + i) % 4
                try:
                    if k == 0:
                        r = self.client.chat.completions.create(model="fixture", messages=msgs, max_tokens=8)
                        good = r.choices[0].message.content == want
                    elif k == 1:
                        s = self.client.chat.completions.create(
                            model="fixture", messages=msgs, max_tokens=8, stream=True
                        )
                        good = "".join(c.choices[0].delta.content or "" for c in s if c.choices) == want
                    else:
                        try:
                            self.client.chat.completions.create(
                                model="fixture", **bad[(t * 20 + i) % len(bad)]
                            )
                            good = False
                        except openai.BadRequestError as e:
                            good = e.status_code == 400 and "message" in e.body
                            k = -1  # a refusal, counted apart
                except Exception as e:  # noqa: BLE001 - any other outcome is a failure
                    good = False
                    with lock:
                        failures.append(f"thread {t} request {i}: {type(e).__name__}: {e}")
                with lock:
                    if good:
                        counts["refused" if k == -1 else "ok"] += 1
                    elif not failures or not failures[-1].startswith(f"thread {t} request {i}"):
                        failures.append(f"thread {t} request {i} (kind {k}) answered wrongly")

        threads = [threading.Thread(target=client_thread, args=(t,)) for t in range(16)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        self.assertEqual(failures, [])
        self.assertEqual(counts["ok"] + counts["refused"], 16 * 20)
        self.assertGreater(counts["refused"], 0)
        h = self.health()
        self.assertEqual((h["status"], h["running"], h["waiting"]), ("ok", 0, 0))


if __name__ == "__main__":
    sys.exit(unittest.main())
