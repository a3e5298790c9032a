"""Grow a checkpoint: one more layer, or a wider model.

    python3 -m train.nano.grow --ckpt train/runs/A/ckpt.pt --out train/runs/B/ckpt.pt --at 1
    python3 -m train.nano.grow --ckpt train/runs/A/ckpt.pt --out train/runs/B/ckpt.pt --widen 2

Depth (progressive stacking): the new block's output projections (attention o, FFN down) are
zero, so the grown model computes exactly what the old one did; its W_q starts mimetic (~W_k).
Width (--widen F): dim, heads, KV heads and FFN all times F (head size kept). The old weights
fill the top-left corner; new heads and FFN units start at the usual init but write nothing
to the old residual dims (their output columns are zero), new residual dims start small, and
the RMSNorm gains are divided by sqrt(F) so the old dims see the same normalised values. The
grown model's logits stay close to the old ones (test), so a learned circuit survives.
Every other weight, the step, stage and corpus counters carry over; the optimizer starts fresh.
"""

from __future__ import annotations

import argparse
import os
import sys

import torch

from .model import Config, DreamModel


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ckpt", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--at", type=int, default=None, help="index of the new block (default: last)")
    ap.add_argument("--widen", type=int, default=0, help="multiply the width by this factor instead")
    a = ap.parse_args(argv)
    st = torch.load(a.ckpt)
    if a.widen:
        return save(a.out, widen(st, a.widen), f"{a.ckpt}: width x{a.widen}")
    st2 = deepen(st, a.at)
    old, new = st["config"]["layers"], st2["config"]["layers"]
    at = old if a.at is None else a.at
    return save(a.out, st2, f"{a.ckpt}: {old} -> {new} layers (new block {at})")


@torch.no_grad()
def deepen(st: dict, at: int | None = None) -> dict:
    """The checkpoint with one more block at index `at` (default: last) that computes nothing yet."""
    old = Config(**st["config"])
    at = old.layers if at is None else at
    if not 0 <= at <= old.layers:
        raise SystemExit(f"--at {at}: a new block goes at 0..{old.layers}")
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
    return {**st, "model": sd, "opt": None, "probes": None, "config": new_cfg.to_dict()}


NEW_DIMS_SCALE = 0.1  # new residual dims start at a tenth of the usual init


@torch.no_grad()
def widen(st: dict, f: int, new_scale: float = NEW_DIMS_SCALE) -> dict:
    """new_scale 0 keeps the function exactly (but new dims then get no gradient through the
    tied embedding); the default keeps it approximately."""
    old = Config(**st["config"])
    if f < 2:
        raise SystemExit(f"--widen {f}: the factor must be 2 or more")
    cfg = Config(
        **{
            **st["config"],
            "dim": old.dim * f,
            "heads": old.heads * f,
            "kv_heads": old.kv_heads * f,
            "ffn": old.ffn * f,
        }
    )
    torch.manual_seed(st["seed"] + 104729 * f)
    sd = DreamModel(cfg).state_dict()
    D, hd = old.dim, old.head_dim
    for k, w_old in st["model"].items():
        w = sd[k]
        name = k.split(".")[-2] if k.endswith(("weight", "bias")) else k
        if k.endswith("norm.weight"):
            w.copy_(torch.cat([w_old, w_old.mean().expand(w.shape[0] - D)]) / f**0.5)
            continue
        if name == "embed" or (w.dim() == 2 and name in ("q", "k", "v", "gate", "up")):
            w[:, D:] *= new_scale  # reading (or, for the embedding, writing) new residual dims
        if name in ("o", "down"):
            w[:, : w_old.shape[1]][D:] *= new_scale
            w[:D, w_old.shape[1] :] = 0.0  # new heads / units write nothing to the old dims
            w[D:, w_old.shape[1] :] *= new_scale
        w[tuple(slice(0, n) for n in w_old.shape)] = w_old
    assert hd == cfg.head_dim
    return {**st, "model": sd, "opt": None, "probes": None, "config": cfg.to_dict()}


def save(out: str, st: dict, what: str) -> int:
    """Write a grown (or stitched) checkpoint: the start of a new phase, so not at any path's end."""
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    torch.save({**st, "at_end": False}, out)
    print(f"{what} -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
