"""Grow a checkpoint by one layer (progressive stacking): the new block starts as the identity.

    python3 train/grow.py --ckpt train/runs/A/ckpt.pt --out train/runs/B/ckpt.pt --at 1

The new block's output projections (attention o, FFN down) are zero, so the grown model
computes exactly what the old one did; its W_q starts mimetic (~W_k). Every other weight,
the step, stage and corpus counters carry over; the optimizer starts fresh.
"""
from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

from model import Config, DreamModel  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ckpt", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--at", type=int, default=None, help="index of the new block (default: last)")
    a = ap.parse_args(argv)
    st = torch.load(a.ckpt)
    old = Config(**st["config"])
    at = old.layers if a.at is None else a.at
    new_cfg = Config(**{**st["config"], "layers": old.layers + 1})
    torch.manual_seed(st["seed"] + 7919 * new_cfg.layers)
    m = DreamModel(new_cfg)
    m.mimetic_init(1.0)
    sd_old = st["model"]
    sd = m.state_dict()
    for k in sd:
        if not k.startswith("blocks."):
            sd[k] = sd_old[k]
            continue
        i = int(k.split(".")[1])
        if i == at:
            continue
        src = i if i < at else i - 1
        sd[k] = sd_old[k.replace(f"blocks.{i}.", f"blocks.{src}.", 1)]
    sd[f"blocks.{at}.o.weight"].zero_()
    sd[f"blocks.{at}.down.weight"].zero_()
    st = {**st, "model": sd, "opt": None, "config": new_cfg.to_dict()}
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    torch.save(st, a.out)
    print(f"{a.ckpt}: {old.layers} -> {new_cfg.layers} layers (new block {at}) -> {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
