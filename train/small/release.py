"""A train.py checkpoint as the shipped adapter GGUF (llama.cpp's LoRA adapter convention, F16).

    python -m train.small.release RUN/ckpt.pt [--out models/meadow-small.lora.gguf]

The base's head counts and tensor shapes come from the pinned base GGUF, so a mismatched
checkpoint fails here (exit 2) rather than at load time.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import torch

from train.common import prompt
from train.small import export_adapter
from train.small.train import Config

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_OUT = os.path.join(ROOT, "models", "meadow-small.lora.gguf")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ckpt")
    ap.add_argument("--out", default=DEFAULT_OUT)
    ap.add_argument("--dtype", default="f16", choices=["f16", "f32"])
    a = ap.parse_args(argv)
    if not os.path.isfile(a.ckpt):
        print(f"release: no checkpoint at {a.ckpt}", file=sys.stderr)
        return 2
    with open(os.path.join(os.path.dirname(a.ckpt), "config.json")) as f:
        cfg = Config(**{k: v for k, v in json.load(f).items() if k in Config.__dataclass_fields__})
    state = torch.load(a.ckpt, map_location="cpu")["model"]
    arch, n_head, n_head_kv, shapes = export_adapter._base_info(cfg.base)
    try:
        n = export_adapter.export(
            state,
            cfg.alpha,
            cfg.rank,
            a.out,
            arch,
            n_head,
            n_head_kv,
            shapes,
            dtype=a.dtype,
            metadata=prompt.gguf_metadata(),  # the prompt contract meadow-small was tuned on
        )
    except export_adapter.ExportError as e:
        print(f"release: {e}", file=sys.stderr)
        return 2
    print(
        f"{a.out}: {n} adapted projections, rank {cfg.rank}, alpha {cfg.alpha:g}, {os.path.getsize(a.out) / 1e6:.1f} MB"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
