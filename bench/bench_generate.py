"""Generation speed, printed as a table: new tokens/s with the K/V cache against recomputing
the whole canvas every step (what llama.cpp's diffusion example does), and the threshold mode,
side by side in one run, per model.

A last row pair runs the Dream-7B-shaped random Q4_K file (bench/run_bench_forward.sh writes it,
4.4 GB) with fewer new tokens and smaller blocks (default 8 new tokens, blocks of 8): one forward
there takes seconds, so 256 tokens recomputed would take hours. Its ratio is for that length
only; recomputing costs a pass over the whole canvas per step while the cache costs a pass over
one block, so the ratio grows with the answer's length. Random weights are never confident, so
its threshold mode would unmask one token a step like the plain cache: not run.

    /usr/bin/python3 bench/bench_generate.py [--cli build/meadow-mind] [--tokens 256]
        [--model nano --model smollm2-135m ...]
        [--big /tmp/meadow-bench/dream7b-q4_k.gguf] [--big-tokens 8] [--big-block 8] [--no-big]
        [--repeat N]

--repeat N runs every row N times and keeps the fastest (a shared machine only ever slows a run
down); the Dream-7B-shaped rows run once.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import time

PROMPT = "Explain in a few sentences how a pendulum keeps time, then give one example."


def gen(cli: str, model: str, tokens: int, extra: list[str], repeat: int) -> dict:
    args = [cli, "generate", "--model", model, "--prompt", PROMPT, "--max-tokens", str(tokens), "--json"]
    runs = []
    for _ in range(repeat):
        out = subprocess.run(args + extra, capture_output=True, text=True, check=True)
        runs.append(json.loads(out.stdout))
    return max(runs, key=lambda j: j["tokens_per_s"])


def wait_until_written(path: str) -> None:
    """Another process may still be writing the file (make_fixture.py writes in place): wait
    until its size stops changing."""
    size = -1
    while True:
        now = os.path.getsize(path)
        if now == size and not os.path.exists(path + ".writing"):
            return
        if size >= 0:
            print(f"waiting for {path} to be written ({now / 1e9:.2f} GB so far)", flush=True)
        size = now
        time.sleep(10)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", default="build/meadow-mind")
    ap.add_argument("--tokens", type=int, default=256)
    ap.add_argument("--block", type=int, default=32)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--model", action="append", default=[])
    ap.add_argument("--big", default="/tmp/meadow-bench/dream7b-q4_k.gguf")
    ap.add_argument("--big-tokens", type=int, default=8)
    ap.add_argument("--big-block", type=int, default=8)
    ap.add_argument("--no-big", action="store_true", help="skip the Dream-7B-shaped file")
    ap.add_argument("--repeat", type=int, default=1, help="runs per row, the fastest kept")
    a = ap.parse_args()
    models = a.model or ["nano", "smollm2-135m"]
    # (label, model, new tokens, block, with the threshold mode)
    plan = [(m, m, a.tokens, a.block, True, a.repeat) for m in models]
    if not a.no_big:
        if os.path.exists(a.big):
            wait_until_written(a.big)
            plan.append(("Dream-7B-shaped Q4_K (random)", a.big, a.big_tokens, a.big_block, False, 1))
        else:
            print(f"({a.big} is missing: bench/run_bench_forward.sh writes it; row skipped)")
    print(
        f"{a.threads} threads, greedy, --ignore-eos, best of {a.repeat}; tokens/s: new tokens over "
        "the time after the prompt's pass (the cached paths' first pass; recompute has none), "
        "then over the whole time"
    )
    print(
        "| model | mode | new tokens | block | steps | passes | tokens/s | vs recompute | tokens/s with prompt | vs recompute |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for label, m, tokens, block, with_threshold, repeat in plan:
        # --ignore-eos: every mode decodes the same number of new tokens.
        common = ["--block", str(block), "--threads", str(a.threads), "--ignore-eos"]
        runs = [
            ("recompute (no cache)", common + ["--no-cache"]),
            ("K/V cache", common),
        ]
        if with_threshold:
            runs.append(("K/V cache + threshold 0.9", common + ["--threshold", "0.9"]))
        base = None
        for name, extra in runs:
            try:
                j = gen(a.cli, m, tokens, extra, repeat)
            except subprocess.CalledProcessError as e:
                print(f"| {label} | {name} | error: {e.stderr.strip()} |")
                break
            if "threshold" in name and j["arch"] in ("qwen2", "llama"):
                continue  # causal models write one token a step: no threshold mode
            tps = j["tokens_per_s"]
            all_tps = 1000.0 * j["completion_tokens"] / (j["prefill_ms"] + j["ms"])
            base = base or (tps, all_tps)
            rate = f"{tps:,.1f}" if tps >= 10 else f"{tps:.3f}"
            all_rate = f"{all_tps:,.1f}" if all_tps >= 10 else f"{all_tps:.3f}"
            blk = "-" if j["arch"] in ("qwen2", "llama") else str(block)
            print(
                f"| {label} | {name} | {j['completion_tokens']} | {blk} | {j['steps']} | "
                f"{j['passes']} | {rate} | {tps / base[0]:.2f}x | {all_rate} | {all_tps / base[1]:.2f}x |",
                flush=True,
            )


if __name__ == "__main__":
    main()
