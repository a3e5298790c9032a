"""Generation speed, printed as a table: new tokens/s with the K/V cache against recomputing
the whole canvas every step (what llama.cpp's diffusion example does), and the threshold mode,
side by side in one run, per model.

    /usr/bin/python3 bench/bench_generate.py [--cli build/meadow-mind] [--tokens 256]
        [--model nano --model smollm2-135m ...]
"""

from __future__ import annotations

import argparse
import json
import subprocess

PROMPT = "Explain in a few sentences how a pendulum keeps time, then give one example."


def gen(cli: str, model: str, tokens: int, extra: list[str]) -> dict:
    args = [cli, "generate", "--model", model, "--prompt", PROMPT, "--max-tokens", str(tokens), "--json"]
    out = subprocess.run(args + extra, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", default="build/meadow-mind")
    ap.add_argument("--tokens", type=int, default=256)
    ap.add_argument("--block", type=int, default=32)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--model", action="append", default=[])
    a = ap.parse_args()
    models = a.model or ["nano", "smollm2-135m"]
    # --ignore-eos: every mode decodes the same number of new tokens.
    common = ["--block", str(a.block), "--threads", str(a.threads), "--ignore-eos"]
    print("| model | mode | new tokens | steps | passes | tokens/s | vs recompute |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for m in models:
        runs = [
            ("recompute (no cache)", common + ["--no-cache"]),
            ("K/V cache", common),
            ("K/V cache + threshold 0.9", common + ["--threshold", "0.9"]),
        ]
        base = None
        for name, extra in runs:
            try:
                j = gen(a.cli, m, a.tokens, extra)
            except subprocess.CalledProcessError as e:
                print(f"| {m} | {name} | error: {e.stderr.strip()} |")
                break
            if "threshold" in name and j["arch"] in ("qwen2", "llama"):
                continue  # causal models write one token a step: no threshold mode
            tps = j["tokens_per_s"]
            base = base or tps
            print(
                f"| {m} | {name} | {j['completion_tokens']} | {j['steps']} | {j['passes']} | "
                f"{tps:.1f} | {tps / base:.2f}x |"
            )


if __name__ == "__main__":
    main()
