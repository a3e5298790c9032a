#!/usr/bin/env python3
"""Writes fuzz/corpus/*: the small seed inputs of the fuzz targets (committed; rerun to
regenerate). Usage: /usr/bin/python3 fuzz/make_seeds.py"""
import gzip
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tools"))
from gguf_py import gguf_file as gf  # noqa: E402
from gguf_py import quant  # noqa: E402


def put(target, name, data):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)


def every_type_gguf(path):
    """Every metadata value type (a nested array too), a few tokens, one tensor per type."""
    w = gf.Writer(path)
    for i, (vtype, value) in enumerate([(gf.U8, 7), (gf.I8, -7), (gf.U16, 700), (gf.I16, -700),
                                        (gf.U32, 70000), (gf.I32, -70000), (gf.F32, 0.5),
                                        (gf.BOOL, True), (gf.U64, 2**40), (gf.I64, -2**40),
                                        (gf.F64, 1e-300)]):
        w.add(f"meadow.v{i}", vtype, value)
    w.add("general.name", gf.STRING, "seed")
    w.add("meadow.nested", gf.ARRAY, (gf.ARRAY, [(gf.U8, [1, 2]), (gf.STRING, ["a"])]))
    w.add("tokenizer.ggml.model", gf.STRING, "gpt2")
    w.add("tokenizer.ggml.pre", gf.STRING, "default")
    w.add("tokenizer.ggml.tokens", gf.ARRAY, (gf.STRING, ["a", "b", "ab", "<|im_start|>"]))
    w.add("tokenizer.ggml.token_type", gf.ARRAY, (gf.I32, [1, 1, 1, 3]))
    w.add("tokenizer.ggml.merges", gf.ARRAY, (gf.STRING, ["a b"]))
    w.add("tokenizer.ggml.bos_token_id", gf.U32, 3)
    rng = np.random.default_rng(0)
    plan = [("f32", [4], "F32"), ("f16", [2, 2], "F16"), ("bf16", [4], "BF16"),
            ("q8_0", [32], "Q8_0"), ("q4_0", [32], "Q4_0"), ("q4_k", [256], "Q4_K"),
            ("q6_k", [256], "Q6_K")]
    for name, dims, t in plan:
        w.declare(name, dims, t)
    w.begin()
    for name, dims, t in plan:
        w.write(name, [quant.quantize(t, rng.standard_normal(int(np.prod(dims))))])
    w.end()


def main():
    tmp = os.path.join(HERE, "corpus", "gguf")
    os.makedirs(tmp, exist_ok=True)
    every_type_gguf(os.path.join(tmp, "every_type.gguf"))
    for arch in ("dream", "llama"):
        subprocess.run([sys.executable, os.path.join(ROOT, "tools", "make_fixture.py"), "--arch",
                        arch, "--type", "F16", "--hidden", "4", "--layers", "1", "--heads", "1",
                        "--kv-heads", "1", "--ffn", "4", "--vocab", "264", "--ctx", "8",
                        "--tied", "--out", os.path.join(tmp, f"tiny_{arch}.gguf")], check=True)
    with open(os.path.join(tmp, "every_type.gguf"), "rb") as f:
        put("gguf", "truncated.gguf", f.read()[:200])

    put("tokenizer", "plain", "the thing in the rain, 12 and 3")
    put("tokenizer", "special", "<|im_start|>user\nthe <think> ok<|endoftext|>")
    put("tokenizer", "unicode", "caf\u00e9 cafe\u0301 \u2713 \u65e5\u672c \U0001F600  \t\n\n")
    put("tokenizer", "invalid", b"ok \xff\xfe \xc3( \xe2\x9c end")

    put("json", "discrete", "[0, 1, 1, 0]")
    put("json", "box", "[[0.5], [-1.0], [2e-3]]")
    put("json", "nested", '[[[0.25, -0.5]], [[1, 1]]]')
    put("json", "frozenlake", '{"map_name": "8x8", "is_slippery": false, "max_episode_steps": 5}')
    put("json", "lander", '{"continuous": true, "gravity": -9.8, "enable_wind": true}')
    put("json", "desc", '{"desc": ["SFFF", "FHFH", "FFFH", "HFFG"], "render_mode": null}')

    sep = b"\xff"
    for i, fields in enumerate([
            [b"", b"If the pole is falling left, choose A.", b"The pole is falling left.",
             b"push left", b"push right"],
            [b"Read the rule.", b"Walk to the goal.", b"The goal is east.", b"go north",
             b"go east", b"go south"],
            [b"", b"<|im_start|>x", b"  spaced  ", b"a\nb"]]):
        put("prompt", f"table{i}", bytes([i]) + sep.join(fields))

    # server: first byte even = chat completions, odd = text completions; then the body.
    put("server", "chat", b"\x00" + b'{"messages": [{"role": "user", "content": "hi"}], "max_tokens": 8, '
        b'"temperature": 0.5, "top_p": 0.9, "seed": 3, "stop": ["\\n"], "n": 2, "stream": true}')
    put("server", "chat-parts", b"\x00" + b'{"messages": [{"role": "system", "content": null}, {"role": "user", '
        b'"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}], "choice": ["yes", "no"]}')
    put("server", "tools", b"\x00" + b'{"messages": [{"role": "user", "content": "read x"}], "tools": [{"type": '
        b'"function", "function": {"name": "read_file", "parameters": {"type": "object", "properties": '
        b'{"path": {"type": "string"}}, "required": ["path"]}}}], "tool_choice": {"type": "function", '
        b'"function": {"name": "read_file"}}}')
    put("server", "completion", b"\x01" + b'{"prompt": "Once", "max_tokens": 4, "logprobs": 2, '
        b'"block_size": 8, "steps": 4, "threshold": 0.9}')
    put("server", "bad", b"\x00" + b'{"messages": "nope", "n": 99, "temperature": -1}')
    pull_seeds()
    # request: bytes that FuzzedDataProvider turns into roles, stops and numbers
    # (fuzz/fuzz_request.cpp); a few fixed patterns to start from.
    for name, data in [("zeros", bytes(64)), ("ones", b"\x01" * 64), ("ramp", bytes(range(128))),
                       ("high", bytes(range(255, 127, -1)))]:
        put("request", name, data)
    # http: the first byte picks the body limit and the read size; then a raw request.
    put("http", "length", b"\x07" + b"POST /v1/decide HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\n"
        b'{"a": "bc"}')
    put("http", "chunked", b"\x27" + b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"4;x=y\r\nabcd\r\n2\r\nef\r\n0\r\nT: 1\r\n\r\n")
    put("http", "gzip", b"\x0b" + b"POST / HTTP/1.1\r\nContent-Encoding: gzip\r\nContent-Length: 28\r\n\r\n"
        + gzip.compress(b"hello hello hello", mtime=0))
    put("http", "expect", b"\x05" + b"POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\nabc")
    put("http", "get", b"\x00" + b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")


def pull_seeds():
    """pull: 'R' + a record file, 'H' + a reply's header lines, anything else a world whose
    every choice the bytes make (fuzz/fuzz_pull.cpp)."""
    put("pull", "record", 'R{"meadow_part": 1, "url_sha256": "' + "ab" * 32 + '", "url": '
        '"http://alice:***@a.example/m/model.gguf", "etag": "\\"v0\\"", "last_modified": '
        '"Mon, 10 Nov 2026 10:00:00 GMT", "total": 4096}\n')
    put("pull", "record-bad", 'R{"meadow_part": 2, "url_sha256": "xyz", "total": -1}')
    put("pull", "reply-206", b"H\x01\x04\"v0\"\x00\x01" + bytes(8) + b"\x10\x00\x00\x00"
        b"\x10HTTP/1.1 206 Partial\x18Content-Range: bytes 4096-8191/8192\x0aETag: \"v0\"")
    put("pull", "reply-416", b"H\x01\x00\x00\x01" + bytes(8) + b"\x10HTTP/1.1 416 Range\x14"
        b"Content-Range: bytes */4096")
    # Worlds: byte patterns, each choice of fuzz_world read from them (all zeros: every
    # choice at its first value); the fuzzer finds the cuts, resumes and changed files.
    put("pull", "world-zero", b"\x00" * 64)
    put("pull", "world-cut-resume", bytes(range(0, 250, 3)) * 2)
    put("pull", "world-changed", bytes((i * 37 + 11) % 256 for i in range(160)))
    put("pull", "world-other-url", bytes((i * 101 + 7) % 256 for i in range(240)))


if __name__ == "__main__":
    main()
