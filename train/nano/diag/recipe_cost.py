"""What the recipe costs in arithmetic, and how fast this CPU does it.

    python3 -m train.nano.diag.recipe_cost                 # the shipped lineage's logs (the training cache's checkpoints/)
    python3 -m train.nano.diag.recipe_cost --peak --threads 2   # and the matmul peak of this CPU, side by side

For each part (a training log and the model size that wrote it) it integrates the training
step's matrix-product FLOPs over the log's intervals (steps x rows x the logged row length) and
prints them beside the part's logged wall and CPU minutes, so the achieved GFLOP/s can be read
against the peak torch reaches on this machine. Why: issue 4 asks the whole recipe to run in
150 minutes on 2 cores; this tells a trainer that is slow from a recipe that is long.

The count is of matrix products only (linear layers, attention scores and mixing, the letter
head at the targets), forward x 3 for the backward; elementwise work (norms, RoPE, softmax,
SwiGLU, the optimizer) is left out, so achieved GFLOP/s read low by that share. Evals in training
are in the logged minutes and not in the FLOPs. The row length of each interval is the one
logged (the interval's last batch).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import dataclass

from train.common import cache_dir

TRAIN = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def lineage() -> tuple:
    """The shipped model's lineage (model_card.py's parts), its logs in the training cache
    (train/nano/checkpoints.md); widths follow the recipe's convention: head dim 16, half as many KV
    heads, FFN 3 x width."""
    ck = cache_dir.checkpoints_dir()
    return (
        ("scene branch", os.path.join(ck, "nano", "log.jsonl"), "64x2"),
        ("word branch, narrow", os.path.join(ck, "words3", "log-narrow.jsonl"), "64x3"),
        ("word branch", os.path.join(ck, "words3", "log.jsonl"), "128x3"),
        ("joint fine-tune", os.path.join(ck, "joint", "log.jsonl"), "192x3"),
        ("polish", os.path.join(ck, "polish", "log.jsonl"), "192x3"),
    )


@dataclass(frozen=True)
class Size:
    dim: int
    layers: int
    vocab: int = 4096

    @property
    def heads(self) -> int:
        return self.dim // 16

    @property
    def kv_dim(self) -> int:
        return self.heads // 2 * 16

    @property
    def ffn(self) -> int:
        return 3 * self.dim


def parse_size(text: str) -> Size:
    try:
        d, n = (int(x) for x in text.lower().split("x"))
    except ValueError:
        raise ValueError(f"size {text!r}: expected DIMxLAYERS, e.g. 192x3") from None
    if d <= 0 or n <= 0 or d % 32:
        raise ValueError(f"size {text!r}: the width must be a positive multiple of 32, the layers positive")
    return Size(d, n)


def forward_flops(s: Size, batch: int, seq: int, targets_per_row: float) -> float:
    """Matrix-product FLOPs of one forward of DreamModel.hidden(..., targets) + head on a
    [batch, seq] step (model.py): every layer but the last at all positions; the last one's
    keys and values at all positions, the rest only at the targets (queries over all keys)."""
    d, kv, f = s.dim, s.kv_dim, s.ffn
    kv_proj = 2 * d * 2 * kv  # k and v: 2 FLOPs per multiply-add
    rest = 2 * (d * d + d * d + 3 * d * f)  # q, o, gate / up / down
    att = 2 * 2 * seq * d  # scores and mixing, per query over seq keys
    tokens = batch * seq
    n = batch * targets_per_row
    full = (s.layers - 1) * tokens * (kv_proj + rest + att)
    last = tokens * kv_proj + n * (rest + att)
    return full + last + n * 2 * d * s.vocab


def step_flops(s: Size, batch: int, seq: int, targets_per_row: float) -> float:
    """Forward plus backward (twice the forward's products: inputs' and weights' gradients)."""
    return 3 * forward_flops(s, batch, seq, targets_per_row)


def read_log(path: str) -> list[dict]:
    rows = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                r = json.loads(line)
            except json.JSONDecodeError as e:
                raise ValueError(f"{path}:{n}: not JSON ({e.msg})") from None
            if isinstance(r, dict) and "step" in r:
                rows.append(r)
    return rows


def part_cost(rows: list[dict], s: Size, batch: int, targets_per_row: float) -> dict:
    """Sums over a log's intervals. A line's interval is the steps since the line before (the
    first line's: the gap to the second). Lines that do not advance (a resumed run relogging)
    are skipped."""
    out = {"steps": 0, "tokens": 0.0, "flops": 0.0, "wall_s": 0.0, "cpu_s": 0.0}
    prev = None
    for r in rows:
        if prev is None:
            gap = rows[1]["step"] - r["step"] if len(rows) > 1 else r["step"]
        else:
            gap = r["step"] - prev
        prev = r["step"] if prev is None else max(prev, r["step"])
        if gap <= 0 or not r.get("steps_per_s") or not r.get("seq_len"):
            continue
        out["steps"] += gap
        out["tokens"] += gap * batch * r["seq_len"]
        out["flops"] += gap * step_flops(s, batch, r["seq_len"], targets_per_row)
        out["wall_s"] += gap / r["steps_per_s"]
        out["cpu_s"] += gap / r.get("steps_per_cpu_s", r["steps_per_s"])
    return out


def targets_per_row(stage: str, batch: int = 16, batches: int = 8) -> float:
    """Mean answer-slot targets per row of the corpus at `stage` (the packer's own count)."""
    import random

    from ..batching import Packer
    from ..corpus.generate import example
    from ..tokenizer.bpe import Tokenizer

    pk = Packer(Tokenizer.load(os.path.join(TRAIN, "tokenizer", "vocab.json")))
    n = 0
    for k in range(batches):
        b = pk.batch([example(0, stage, k * batch + i) for i in range(batch)], random.Random(k))
        n += len(b["t_batch"])
    return n / (batch * batches)


def matmul_peak(
    threads: int, bf16: bool, m: int = 4096, k: int = 192, n: int = 576, seconds: float = 2.0
) -> float:
    """GFLOP/s of torch's matmul on [m,k] @ [k,n] (a layer's shape) for about `seconds`."""
    import torch

    from ..heap import keep_heap

    keep_heap()  # as train.py: large products' outputs would be mmapped and page-faulted each call
    torch.set_num_threads(threads)
    a, b = torch.randn(m, k), torch.randn(k, n)
    if bf16:
        a, b = a.bfloat16(), b.bfloat16()
    for _ in range(3):
        a @ b
    reps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        a @ b
        reps += 1
    return 2.0 * m * k * n * reps / (time.perf_counter() - t0) / 1e9


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--part",
        action="append",
        default=[],
        metavar="NAME=LOG@DIMxLAYERS",
        help="a part to count instead of the shipped lineage (repeat)",
    )
    ap.add_argument("--batch", type=int, default=16, help="rule tables (rows) per step")
    ap.add_argument(
        "--targets-stage",
        default="mixed-clauses",
        help="corpus stage whose mean answer targets per row the count uses",
    )
    ap.add_argument("--peak", action="store_true", help="also measure this CPU's matmul GFLOP/s")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--budget", type=float, default=150.0, help="minutes the recipe may take")
    a = ap.parse_args(argv)
    parts = []
    try:
        for p in a.part:
            name, _, rest = p.partition("=")
            log, _, size = rest.rpartition("@")
            if not name or not log:
                raise ValueError(f"--part {p!r}: expected NAME=LOG@DIMxLAYERS")
            parts.append((name, log, size))
        parts = parts or list(lineage())
        sizes = [parse_size(sz) for _, _, sz in parts]
        logs = [read_log(log) for _, log, _ in parts]
    except (OSError, ValueError) as e:
        print(f"recipe_cost: {e}", file=sys.stderr)
        if isinstance(e, OSError) and not a.part:
            print(
                "recipe_cost: the lineage's logs are in the training cache: train/nano/restore_checkpoints.sh "
                "puts them there (train/nano/checkpoints.md)",
                file=sys.stderr,
            )
        return 2
    tpr = targets_per_row(a.targets_stage, a.batch)
    print(f"targets per row: {tpr:.1f} (stage {a.targets_stage}); batch {a.batch}\n")
    print(
        "| part | size | steps | tokens (M) | PFLOP | wall min | CPU min | GFLOP/s per wall s | per CPU s |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    tot = {"flops": 0.0, "wall_s": 0.0, "cpu_s": 0.0}
    for (name, _, size), s, rows in zip(parts, sizes, logs):
        c = part_cost(rows, s, a.batch, tpr)
        for k in tot:
            tot[k] += c[k]
        g = c["flops"] / 1e9
        print(
            f"| {name} | {size} | {c['steps']:,} | {c['tokens'] / 1e6:.0f} | {c['flops'] / 1e15:.2f} | "
            f"{c['wall_s'] / 60:.0f} | {c['cpu_s'] / 60:.0f} | {g / max(c['wall_s'], 1e-9):.0f} | "
            f"{g / max(c['cpu_s'], 1e-9):.0f} |"
        )
    print(
        f"| all | | | | {tot['flops'] / 1e15:.2f} | {tot['wall_s'] / 60:.0f} | {tot['cpu_s'] / 60:.0f} | | |"
    )
    need = tot["flops"] / 1e9 / (a.budget * 60)
    print(
        f"\nIn {a.budget:.0f} minutes this recipe needs {need:.0f} GFLOP/s sustained "
        f"(the products alone, every minute of the budget training)."
    )
    if a.peak:
        print(
            f"\n| matmul [4096,192]@[192,576], {a.threads} threads | GFLOP/s | minutes for the recipe's products |"
        )
        print("| --- | --- | --- |")
        for bf16 in (False, True):
            p = matmul_peak(a.threads, bf16)
            print(f"| {'bfloat16' if bf16 else 'float32'} | {p:.0f} | {tot['flops'] / 1e9 / p / 60:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
