"""Training-step speed of candidate model sizes on this CPU (1 thread by default).

    OPENBLAS_CORETYPE=SkylakeX python3 -m train.nano.diag.bench_speed --stage compact-plateau --batch 16

Reports steps per CPU-second (process time: robust when other jobs share the cores) and
per wall-second, plus the corpus+packing cost per step, for each size in --sizes; with
--heap both (the default), every size first under glibc's default allocator settings, then
after heap.keep_heap() (what train.py does), side by side in one run. Each size runs under
every --paths entry: `full` (the last layer at every position), `targets` (the last layer
only at the answer slots, what train.py does; the same numbers), `targets+bf16` (also under
bfloat16 autocast, train.py --bf16).

On a lent GPU (whose machine has no word lists): pack here, time there.

    python3 -m train.nano.diag.bench_speed --stage events --steps 200 --save-batches .dev/b67.pt
    python3 -m train.nano.diag.bench_speed --load-batches .dev/b67.pt --device cuda --sizes 192x3 --paths targets+bf16
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

import torch
import torch.nn.functional as F

from ..batching import Packer
from ..corpus.generate import example
from ..heap import keep_heap
from ..model import Config, DreamModel
from ..tokenizer.bpe import Tokenizer
from ..train import on

TRAIN = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def pack(tok, stage: str, batch: int, count: int):
    """-> (count packed batches of stage `stage`, their corpus+packing CPU-ms each)"""
    pk = Packer(tok)
    for i in range(200):  # load word lists and WordNet (lazily, on first use) outside the timing
        example(1, stage, i)
    n = count * batch
    c0 = time.process_time()
    exs = [example(0, stage, i) for i in range(n)]
    rng = random.Random(0)
    batches = [pk.batch(exs[i : i + batch], rng) for i in range(0, n, batch)]
    return batches, (time.process_time() - c0) / len(batches) * 1e3


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--stage", default="compact-plateau")
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--steps", type=int, default=15)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--heap", choices=("both", "default", "keep"), default="both")
    ap.add_argument("--sizes", default="64x2,96x2,128x2,64x4,128x4", help="DIMxLAYERS list (ffn = 3*dim)")
    ap.add_argument("--paths", default="full,targets", help="comma list of full, targets, targets+bf16")
    ap.add_argument(
        "--device",
        default="cpu",
        help="torch device of the model and batches (cuda: a lent GPU; the corpus stays on the CPU, "
        "its cost is the column printed apart)",
    )
    ap.add_argument(
        "--save-batches",
        metavar="FILE",
        help="pack the batches, write them to FILE and stop (for a machine without the word lists)",
    )
    ap.add_argument(
        "--load-batches", metavar="FILE", help="time the batches --save-batches wrote (its stage and batch)"
    )
    a = ap.parse_args(argv)
    paths = a.paths.split(",")
    if not set(paths) <= {"full", "targets", "targets+bf16"}:
        ap.error(f"--paths {a.paths!r}: expected full, targets or targets+bf16")
    torch.set_num_threads(a.threads)
    dev = torch.device(a.device)
    tok = Tokenizer.load(os.path.join(TRAIN, "tokenizer", "vocab.json"))
    if a.load_batches:
        saved = torch.load(a.load_batches)
        a.stage, a.batch, data_ms = saved["stage"], saved["batch"], saved["data_ms"]
        batches = [{k: v.long() for k, v in b.items()} for b in saved["batches"]]
    else:
        batches, data_ms = pack(tok, a.stage, a.batch, a.steps + 2)
    if a.save_batches:
        keep = ("ids", "pos", "seg", "t_batch", "t_pos", "t_tok", "letter_rows")  # int32: half the file
        torch.save(
            {
                "stage": a.stage,
                "batch": a.batch,
                "data_ms": data_ms,
                "batches": [{k: b[k].int() for k in keep} for b in batches],
            },
            a.save_batches,
        )
        print(f"{len(batches)} batches of stage {a.stage} ({data_ms:.1f} CPU-ms each) -> {a.save_batches}")
        return 0
    batches = [on(b, dev) for b in batches]
    T = sum(b["ids"].shape[1] for b in batches) / len(batches)
    dec = sum(len(b["letter_rows"]) for b in batches) / len(batches)
    print(
        f"stage {a.stage}, batch {a.batch} tables: mean padded length {T:.0f}, {dec:.0f} decisions/step; "
        f"corpus+packing {data_ms:.1f} CPU-ms/step; threads {a.threads}; "
        f"device {a.device}; OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '')}; load {os.getloadavg()[0]:.1f}"
    )
    modes = {"both": ("default", "keep"), "default": ("default",), "keep": ("keep",)}[a.heap]
    for mode, spec, path in ((m, s, p) for m in modes for s in a.sizes.split(",") for p in paths):
        if mode == "keep" and not keep_heap():
            print("  (no mallopt here: keep_heap skipped)")
        d, L = (int(x) for x in spec.split("x"))
        n_params, cpu, wall = time_steps(len(tok), d, L, path, batches, dev)
        k = len(batches) - 2
        print(
            f"  heap {mode:7s} d={d:4d} layers={L} params={n_params:8d} {path:12s}: {k / cpu:6.2f} steps/CPU-s "
            f"(model only; with data {1 / (cpu / k + data_ms / 1e3):5.2f}), {k / wall:6.2f} steps/wall-s",
            flush=True,
        )
    return 0


def time_steps(vocab: int, d: int, L: int, path: str, batches: list[dict], dev: torch.device):
    """(parameters, CPU s, wall s) of training steps on the batches after the first two (warm-up)
    for a model d wide and L deep; head size 16 as in the shipped model, KV heads half the heads."""
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)  # time the work, not its launch
    torch.manual_seed(0)
    m = DreamModel(
        Config(vocab=vocab, dim=d, layers=L, heads=d // 16, kv_heads=max(1, d // 32), ffn=3 * d)
    ).to(dev)
    opt = torch.optim.AdamW(m.parameters(), lr=1e-3)
    for i, b in enumerate(batches):
        if i == 2:
            sync()
            c0, w0 = time.process_time(), time.time()
        tg = (b["t_batch"], b["t_pos"])
        with torch.autocast(dev.type, dtype=torch.bfloat16, enabled=path.endswith("bf16")):
            if path == "full":
                z = m.head(m.hidden(b["ids"], b["pos"], b["seg"])[tg])
            else:
                z = m.head(m.hidden(b["ids"], b["pos"], b["seg"], targets=tg))
        loss = F.cross_entropy(z.float(), b["t_tok"])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        loss.item()  # train.py logs every step's loss: on a GPU, one wait a step as there
    sync()
    return m.n_params(), time.process_time() - c0, time.time() - w0


if __name__ == "__main__":
    sys.exit(main())
