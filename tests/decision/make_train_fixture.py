#!/usr/bin/env python3
"""A random-weight `dream` GGUF with the embedded model's tokenizer (train/nano/tokenizer/vocab.json)
and its metadata layout (train/nano/export_gguf.py), for the decision-pass tests and benches.

    make_train_fixture.py --out F.gguf [--hidden 64 --layers 2 --heads 4 --kv-heads 2 --ffn 128 --seed 0]

Weights come from tools/make_fixture.py's generator; only the tokenizer differs from a plain
fixture, so prompt ids can be compared with the Python layout's ids for the same strings.
"""

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, ROOT)  # the train package (run as a script by the C++ tests)

import make_fixture as mf  # noqa: E402
import numpy as np  # noqa: E402
from gguf_py import gguf_file as gf  # noqa: E402

from train.nano.tokenizer.bpe import Tokenizer  # noqa: E402


def main(argv):
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--kv-heads", type=int, default=2)
    p.add_argument("--ffn", type=int, default=128)
    p.add_argument("--ctx", type=int, default=1024)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--type", default="F32")
    a = p.parse_args(argv)
    tok = Tokenizer.load(os.path.join(ROOT, "train", "nano", "tokenizer", "vocab.json"))
    # make_fixture's argument namespace, so its metadata/tensor plan are reused as they are
    fa = mf.parse_args(
        [
            "--arch",
            "dream",
            "--out",
            a.out,
            "--type",
            a.type,
            "--hidden",
            str(a.hidden),
            "--layers",
            str(a.layers),
            "--heads",
            str(a.heads),
            "--kv-heads",
            str(a.kv_heads),
            "--ffn",
            str(a.ffn),
            "--ctx",
            str(a.ctx),
            "--seed",
            str(a.seed),
        ]
    )
    merges = [f"{x} {y}" for x, y in tok.merges]
    roles = {"eos": tok.eot, "mask": tok.mask}
    n_vocab = len(tok)
    w = gf.Writer(a.out)
    mf.metadata(w, fa, n_vocab, (tok.tokens, tok.types, merges, roles))
    plan = mf.tensor_plan(fa, n_vocab)
    for name, dims, type_name, _ in plan:
        w.declare(name, dims, type_name)
    rng = np.random.default_rng(a.seed)
    w.begin()
    for name, dims, type_name, kind in plan:
        w.write(name, mf.chunks(rng, dims, type_name, kind, False))
    w.end()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
