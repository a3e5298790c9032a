"""Tests of the trainer (train/nano/train.py): signals, --threads-later, --device / --workers, --path, the read softmax.

python3 -m unittest tests/train/test_train.py -v
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
import unittest

import torch

from tests.train.helpers import QUICK_EVAL, ROOT, TINY_MODEL, VOCAB, tiny_run
from train.nano.corpus.generate import example
from train.nano.tokenizer.bpe import Tokenizer


class SignalTest(unittest.TestCase):
    def test_sigterm_saves_and_exits_nonzero(self):
        """A stopped run saves its checkpoint and exits 143, so the recipe's runner does
        not go on to its next stage (the scene branch once resumed stage 30 on a half-done stage 13)."""
        import signal
        import subprocess
        import time

        with tempfile.TemporaryDirectory() as d:
            cmd = [sys.executable, "-m", "train.nano.train", *tiny_run(d, stage=16, steps=1000000)]
            p = subprocess.Popen(
                cmd,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                cwd=ROOT,
                env={**os.environ, "OMP_NUM_THREADS": "1"},
            )
            log = os.path.join(d, "log.jsonl")
            deadline = time.time() + 120
            while not (os.path.exists(log) and os.path.getsize(log) > 0) and time.time() < deadline:
                time.sleep(0.2)
            p.send_signal(signal.SIGTERM)
            out, _ = p.communicate(timeout=120)
            self.assertEqual(p.returncode, 128 + signal.SIGTERM, out)
            self.assertIn("stopped at step", out)
            self.assertGreater(torch.load(os.path.join(d, "ckpt.pt"))["step"], 0)


class ThreadsLaterTest(unittest.TestCase):
    """--threads-later FILE N: the run takes N threads at the first eval after FILE appears
    (so a word branch can take the scene branch's core once that finishes)."""

    def test_switches_once_the_file_exists(self):
        import contextlib
        import io

        from train.nano import train

        before = torch.get_num_threads()
        try:
            with tempfile.TemporaryDirectory() as d:
                small = [*TINY_MODEL, *QUICK_EVAL, "--stage", "16", "--max-stage", "16"]
                flag = os.path.join(d, "scenes.done")
                out = io.StringIO()
                with contextlib.redirect_stdout(out):
                    train.main(["--run", f"{d}/r", "--steps", "2", "--threads-later", flag, "2"] + small)
                self.assertNotIn("exists", out.getvalue())
                self.assertEqual(torch.get_num_threads(), 1)
                open(flag, "w").close()
                with contextlib.redirect_stdout(out):
                    train.main(["--run", f"{d}/r", "--steps", "4", "--threads-later", flag, "2"] + small)
                self.assertIn(f"{flag} exists: 2 threads from step 4", out.getvalue())
                self.assertEqual(torch.get_num_threads(), 2)
        finally:
            torch.set_num_threads(before)


class DeviceTest(unittest.TestCase):
    """--device: a device this torch cannot reach is a usage error before any training, and a run
    on the default device saves CPU tensors (so a checkpoint moves between machines); --workers,
    for a GPU's faster step, trains on the same batches."""

    def test_unreachable_device_is_a_usage_error(self):
        import contextlib
        import io

        from train.nano import train

        with tempfile.TemporaryDirectory() as d:
            err = io.StringIO()
            with self.assertRaises(SystemExit) as e, contextlib.redirect_stderr(err):
                train.main(["--run", f"{d}/r", "--steps", "1", "--workers", "-1"])
            self.assertEqual(e.exception.code, 2)
            self.assertIn("--workers -1", err.getvalue())
        bad = ["bogus"] + ([] if torch.cuda.is_available() else ["cuda"])
        for device in bad:
            with tempfile.TemporaryDirectory() as d:
                err = io.StringIO()
                with self.assertRaises(SystemExit) as e, contextlib.redirect_stderr(err):
                    train.main(["--run", f"{d}/r", "--steps", "1", "--device", device])
                self.assertEqual(e.exception.code, 2)
                self.assertIn(
                    f"--device {device!r}" if device == "bogus" else "sees no CUDA device", err.getvalue()
                )
                self.assertFalse(os.path.exists(f"{d}/r"), "nothing is written before the error")

    def test_checkpoint_holds_cpu_tensors(self):
        import contextlib
        import io

        from train.nano import train

        with tempfile.TemporaryDirectory() as d:
            with contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(train.main(tiny_run(f"{d}/r", "--device", "cpu", steps=2)), 0)
            st = torch.load(f"{d}/r/ckpt.pt", weights_only=False)
            self.assertEqual(st["args"]["device"], "cpu")
            tensors = [
                *st["model"].values(),
                *st["probes"].values(),
                *(v for s in st["opt"]["state"].values() for v in s.values() if torch.is_tensor(v)),
            ]
            self.assertTrue(tensors)
            self.assertTrue(all(t.device.type == "cpu" for t in tensors))

    def test_workers_train_on_the_inline_batches(self):
        """--workers packs ahead in processes: the same batches as inline, across promotions (a
        stage changes only at an eval) and a resume in the middle of a packed window."""
        import contextlib
        import io
        import json

        from train.nano import train

        small = [
            *TINY_MODEL,
            "--eval-every",
            "4",
            "--eval-tables",
            "2",
            "--promote",
            "0",
            "--max-stage",
            "2",
        ]
        with tempfile.TemporaryDirectory() as d:
            with contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(train.main(["--run", f"{d}/inline", "--steps", "12"] + small), 0)
                self.assertEqual(
                    train.main(["--run", f"{d}/ahead", "--steps", "6", "--workers", "2"] + small), 0
                )
                self.assertEqual(
                    train.main(["--run", f"{d}/ahead", "--steps", "12", "--workers", "2"] + small), 0
                )
            runs = [torch.load(f"{d}/{r}/ckpt.pt", weights_only=False) for r in ("inline", "ahead")]
            logs = [[json.loads(x) for x in open(f"{d}/{r}/log.jsonl")] for r in ("inline", "ahead")]
        self.assertEqual(
            [x["stage"] for x in logs[0]], ["compact-plateau", "compact-shuffled", "three-four-options"]
        )  # promoted at each eval
        self.assertEqual(
            [(x["stage"], x["eval_acc"]) for x in logs[0]], [(x["stage"], x["eval_acc"]) for x in logs[1]]
        )
        self.assertEqual(logs[0][-1]["loss"], logs[1][-1]["loss"])
        self.assertEqual(runs[0]["counters"], runs[1]["counters"])
        for k, v in runs[0]["model"].items():
            self.assertTrue(torch.equal(v, runs[1]["model"][k]), k)

    def test_workers_end_when_the_run_stops_mid_window(self):
        """A run that stops before its packed window is used up (time, a signal) still ends: its
        workers, blocked on full result pipes and forked with the trainer's SIGTERM handler, hung
        it once. A child process, so a hang fails here instead of stalling the suite."""
        import signal
        import subprocess
        import sys

        with tempfile.TemporaryDirectory() as d:
            cmd = [
                sys.executable,
                "-m",
                "train.nano.train",
                "--run",
                f"{d}/r",
                "--workers",
                "2",
                "--minutes",
                "0.05",
                "--steps",
                "100000",
                "--eval-every",
                "100000",
                "--eval-tables",
                "2",
                *TINY_MODEL,
            ]
            p = subprocess.Popen(
                cmd,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                start_new_session=True,
                cwd=ROOT,
            )
            try:
                out, err = p.communicate(timeout=120)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)  # the trainer and its workers
                p.communicate()
                self.fail("train.py --workers did not end after its time was up")
            self.assertEqual(p.returncode, 0, err[-2000:])
            self.assertIn("stopped at step", out)


class PathTest(unittest.TestCase):
    """--path walks listed stages in order, replays the path's earlier ones, and --stop-at-end
    ends a phase when its last stage reaches --promote (so a script can grow the model next)."""

    def test_path_order_and_replay(self):
        import contextlib
        import io

        from train.nano.stream import path_replay
        from train.nano.train import next_stage, parse, replay_note

        a = parse(
            ["--run", "x", "--path", "compact-plateau,compact-shuffled,chat-plateau", "--mix-prev", "0.2"]
        )
        self.assertEqual(
            [next_stage(a, s) for s in ("compact-plateau", "compact-shuffled", "chat-plateau")],
            ["compact-shuffled", "chat-plateau", None],
        )
        self.assertEqual(
            (path_replay(a, "compact-plateau"), path_replay(a, "chat-plateau")),
            (None, ["compact-plateau", "compact-shuffled"]),
        )
        self.assertIn("stages compact-plateau,compact-shuffled in 20%", replay_note(a, "chat-plateau"))
        self.assertEqual(parse(["--run", "x", "--path", "0,1,16"]).path, a.path)  # numbers: the stages' seeds
        b = parse(["--run", "x", "--replay-from", "16", "--replay-to", "1", "--mix-prev", "0.3"])
        self.assertIn("none", replay_note(b, "letter-first"))  # the trap of an early run: an empty range
        for bad in ("0,x", "0,99", "1,1", "1,compact-shuffled"):
            with self.assertRaises(SystemExit), contextlib.redirect_stderr(io.StringIO()):
                parse(["--run", "x", "--path", bad])
        self.assertIsNone(parse(["--run", "x", "--path", ""]).path)  # clears a resumed run's path
        from train.nano.diag import evaluate

        for bad in ("x", "99"):  # checked before any checkpoint is read
            with self.assertRaises(SystemExit) as e, contextlib.redirect_stderr(io.StringIO()):
                evaluate.main(["--ckpt", "/nonexistent.pt", "--stages", bad])
            self.assertEqual(e.exception.code, 2)

    def test_stop_at_end(self):
        import contextlib
        import io

        from train.nano import train

        with tempfile.TemporaryDirectory() as d:
            args = tiny_run(d, "--path", "16,17", "--promote", "0", "--stop-at-end", steps=50)
            with contextlib.redirect_stdout(io.StringIO()) as out:
                self.assertEqual(train.main(args), 0)
            st = torch.load(os.path.join(d, "ckpt.pt"))
            self.assertEqual(
                (st["step"], st["stage"], st["at_end"]), (4, "chat-three-options", True), out.getvalue()
            )
            with contextlib.redirect_stdout(io.StringIO()) as out:
                self.assertEqual(train.main(args), 0)
            self.assertIn("already reached", out.getvalue())
            self.assertEqual(torch.load(os.path.join(d, "ckpt.pt"))["step"], 4)


class ReadSoftmaxTest(unittest.TestCase):
    def test_unread_tokens_get_no_gradient(self):
        """--read-softmax: an embedding row no text of the batch holds gets no gradient at all
        (with the full softmax every row does: the push that collapses unread tokens)."""
        import contextlib
        import io

        from train.nano import train
        from train.nano.batching import Packer
        from train.nano.model import Config, DreamModel

        tok = Tokenizer.load(VOCAB)
        torch.manual_seed(0)
        m = DreamModel(Config(vocab=len(tok), dim=16, layers=1, heads=2, kv_heads=1, ffn=32))
        pk = Packer(tok)
        b = pk.batch([example(0, 25, i) for i in range(3)], random.Random(0))
        keep = train.read_tokens(b, tok, pk.letter_ids)
        self.assertTrue(keep[pk.letter_ids].all() and keep[tok.mask] and keep[tok.eot])
        self.assertGreater(int((~keep).sum()), 3000)
        for restrict in (False, True):
            m.zero_grad()
            z = m.head(m.hidden(b["ids"], b["pos"], b["seg"])[b["t_batch"], b["t_pos"]])
            if restrict:
                z = z.masked_fill(~keep, float("-inf"))
            torch.nn.functional.cross_entropy(z, b["t_tok"]).backward()
            g = m.embed.weight.grad[~keep].abs().sum().item()
            self.assertEqual(g == 0.0, restrict, g)
        with tempfile.TemporaryDirectory() as d, contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(
                train.main(tiny_run(d, stage=25, steps=2) + ["--read-softmax"]),
                0,
            )
            self.assertTrue(torch.load(os.path.join(d, "ckpt.pt"))["args"]["read_softmax"])


if __name__ == "__main__":
    unittest.main()
