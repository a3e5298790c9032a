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

--repeat N runs the model's modes N times in interleaved rounds (recompute, cache, threshold,
recompute, ...) and prints each mode's median tokens/s and the median of the rounds' ratios, so
a shared machine's load, which changes by the minute, falls on both sides of each ratio; the
Dream-7B-shaped rows run once.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import time

PROMPT = "Explain in a few sentences how a pendulum keeps time, then give one example."


def gen(cli: str, model: str, tokens: int, extra: list[str]) -> dict:
    args = [cli, "generate", "--model", model, "--prompt", PROMPT, "--max-tokens", str(tokens), "--json"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(args + extra, capture_output=True, text=True, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    j = json.loads(out.stdout)
    j["all_tps"] = 1000.0 * j["completion_tokens"] / (j["prefill_ms"] + j["ms"])
    # CPU seconds of the whole process (load, prompt, steps): what a shared machine's
    # neighbours change least, unlike wall time.
    j["cpu_s"] = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    j["cpu_tps"] = j["completion_tokens"] / max(j["cpu_s"], 1e-9)
    return j


def fmt(x: float) -> str:
    return f"{x:,.1f}" if x >= 10 else f"{x:.3f}"


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
    ap.add_argument("--repeat", type=int, default=1, help="interleaved rounds per model; medians")
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
        f"{a.threads} threads, greedy, --ignore-eos, median of {a.repeat} interleaved rounds; "
        "tokens/s: new tokens over the time after the prompt's pass (the cached paths' first "
        "pass; recompute has none), then over the whole time, then per CPU second of the "
        "whole process (the column a busy machine disturbs least)"
    )
    print(
        "| model | mode | new tokens | block | steps | passes | tokens/s | vs recompute "
        "| tokens/s with prompt | vs recompute | CPU s | vs recompute by CPU |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for label, m, tokens, block, with_threshold, repeat in plan:
        # --ignore-eos: every mode decodes the same number of new tokens.
        common = ["--block", str(block), "--threads", str(a.threads), "--ignore-eos"]
        modes = [
            ("recompute (no cache)", common + ["--no-cache"]),
            ("K/V cache", common),
        ]
        if with_threshold:
            modes.append(("K/V cache + threshold 0.9", common + ["--threshold", "0.9"]))
        rounds: list[list[dict]] = []
        try:
            for _ in range(repeat):
                r = []
                for k, (_, extra) in enumerate(modes):
                    if k == 2 and r[0]["arch"] in ("qwen2", "llama"):
                        break  # causal models write one token a step: no threshold mode
                    r.append(gen(a.cli, m, tokens, extra))
                rounds.append(r)
        except subprocess.CalledProcessError as e:
            print(f"| {label} | error: {e.stderr.strip()} |")
            continue
        causal = rounds[0][0]["arch"] in ("qwen2", "llama")
        for k, (name, _) in enumerate(modes):
            if causal and k == 2:
                continue
            js = [r[k] for r in rounds]
            j = js[0]
            tps = statistics.median(x["tokens_per_s"] for x in js)
            all_tps = statistics.median(x["all_tps"] for x in js)
            ratio = statistics.median(r[k]["tokens_per_s"] / r[0]["tokens_per_s"] for r in rounds)
            all_ratio = statistics.median(r[k]["all_tps"] / r[0]["all_tps"] for r in rounds)
            cpu_s = statistics.median(x["cpu_s"] for x in js)
            cpu_ratio = statistics.median(r[k]["cpu_tps"] / r[0]["cpu_tps"] for r in rounds)
            blk = "-" if causal else str(block)
            print(
                f"| {label} | {name} | {j['completion_tokens']} | {blk} | {j['steps']} | "
                f"{j['passes']} | {fmt(tps)} | {ratio:.2f}x | {fmt(all_tps)} | {all_ratio:.2f}x | "
                f"{fmt(cpu_s)} | {cpu_ratio:.2f}x |",
                flush=True,
            )


if __name__ == "__main__":
    main()
