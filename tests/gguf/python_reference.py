#!/usr/bin/env python3
"""Independent reference for the C++ GGUF reader (run by python_reference_test.cpp).

For each tensor type, writes a small random model with tools/make_fixture.py (a separate
NumPy writer and quantizer), then reads it back with tools/gguf_py (a separate reader and
NumPy dequantizer) and dumps, under OUTDIR:
  TYPE.gguf         the fixture
  TYPE.json         {"meta": {key: value}, "tensors": {name: {"dims", "type", "offset"}}}
  TYPE/NAME.f32     every tensor dequantized to little-endian float32
Usage: python_reference.py OUTDIR TYPE...
"""
import json
import os
import sys

SOURCE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(SOURCE, "tools"))
import make_fixture  # noqa: E402
from gguf_py import gguf_file as gf  # noqa: E402


def main(out, types):
    for t in types:
        path = os.path.join(out, t + ".gguf")
        args = ["--arch", "dream", "--out", path, "--type", t, "--hidden", "256", "--heads", "4",
                "--kv-heads", "2", "--ffn", "256", "--layers", "1", "--vocab", "300", "--seed", "3"]
        if make_fixture.main(args) != 0:
            return 1
        r = gf.Reader(path)
        os.makedirs(os.path.join(out, t), exist_ok=True)
        tensors = {}
        for name, (dims, tname, start) in r.tensors.items():
            tensors[name] = {"dims": dims, "type": tname}
            r.tensor(name).astype("<f4").tofile(os.path.join(out, t, name + ".f32"))
        with open(os.path.join(out, t + ".json"), "w") as f:
            json.dump({"meta": r.meta, "tensors": tensors}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
