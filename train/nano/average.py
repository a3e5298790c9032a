"""Mean of several checkpoints' model weights (a "soup" of fine-tunes from one parent).

    python3 -m train.nano.average --out train/runs/joint/ckpt.pt A/ckpt.pt B/ckpt.pt C/ckpt.pt

Why: the polish ends on the mean of its last two cycles' ends, which reads at or above the
better of them on most rows (all 47 rephrasings where one end read 44); a mean of sibling
fine-tunes only splits their difference (train/DESIGN.md, "polish"). The other state (step, stage, args,
optimizer, probes) is the first checkpoint's, so the result resumes and exports like it.
Checkpoints of different shapes are an error (exit 2), never a silent partial mean.
"""

from __future__ import annotations

import argparse
import sys

import torch


def average(ckpts: list[dict]) -> dict:
    first = ckpts[0]
    for c in ckpts[1:]:
        if c["config"] != first["config"] or c["model"].keys() != first["model"].keys():
            raise ValueError("checkpoints differ in architecture (config or parameter names)")
        for k, v in c["model"].items():
            if v.shape != first["model"][k].shape:
                raise ValueError(f"{k}: shape {tuple(v.shape)} != {tuple(first['model'][k].shape)}")
    out = dict(first)
    out["model"] = {
        k: (sum(c["model"][k].double() for c in ckpts) / len(ckpts)).to(v.dtype)
        for k, v in first["model"].items()
    }
    # the others as branches of the first (fine-tunes from its step): what they add to its
    # training, for the model card (tables seen, training time)
    branches = [
        {
            "steps": c["step"] - first["step"],
            "elapsed_s": c["elapsed_s"] - first["elapsed_s"],
            "stage": c["stage"],
        }
        for c in ckpts[1:]
    ]
    if all(b["steps"] > 0 for b in branches):
        base = first.get("counters") or {}
        counters = dict(base)
        for c in ckpts[1:]:
            for k, v in (c.get("counters") or {}).items():
                counters[k] = counters.get(k, 0) + v - base.get(k, 0)
        out["counters"] = counters
        out["soup"] = {"branches": branches}
    else:
        out["soup"] = {"branches": []}  # not fine-tunes of the first: a plain mean
    out["soup"]["steps"] = [c["step"] for c in ckpts]
    return out


def main_args(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("ckpts", nargs="+")
    a = ap.parse_args(argv)
    if len(a.ckpts) < 2:
        print("average.py: give at least two checkpoints", file=sys.stderr)
        return 2
    try:
        ckpts = [torch.load(p, map_location="cpu", weights_only=False) for p in a.ckpts]
        soup = average(ckpts)
    except (OSError, RuntimeError, KeyError, ValueError) as e:
        print(f"average.py: {e}", file=sys.stderr)
        return 2
    torch.save(soup, a.out)
    print(
        f"average.py: mean of {len(ckpts)} checkpoints (step {soup.get('step')}, "
        f"{len(soup['soup']['branches'])} branches of it) -> {a.out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main_args())
