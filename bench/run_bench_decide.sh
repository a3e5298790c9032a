#!/usr/bin/env bash
# Decision latency (bench_decide) on random-weight fixtures shaped like the embedded model
# (the sizes training tried: 64 x 2 up to 128 x 4, the 4096-token training vocabulary), plus
# models/meadow-nano.gguf when it exists, and the cached minilm-l6 (encoder rows).
# Usage: bench/run_bench_decide.sh BUILD_DIR [DIR=/tmp/meadow-bench] [threads=2] [decisions=300]
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:?build dir configured with -DMEADOW_BENCH=ON}"
dir="${2:-/tmp/meadow-bench}"
threads="${3:-2}"
n="${4:-300}"
mkdir -p "$dir"
cmake --build "$build" --target bench_decide
make() {  # name, make_train_fixture args...
  local out="$dir/$1.gguf"
  shift
  [ -f "$out" ] || /usr/bin/python3 tests/decision/make_train_fixture.py --out "$out" "$@"
  echo "$out"
}
small=$(make nano-64x2 --hidden 64 --layers 2 --heads 4 --kv-heads 2 --ffn 192)
large=$(make nano-128x4 --hidden 128 --layers 4 --heads 4 --kv-heads 2 --ffn 384)
big=$(make nano-256x4 --hidden 256 --layers 4 --heads 8 --kv-heads 4 --ffn 768)
for m in "$small" "$large" "$big"; do "$build/bench/bench_decide" "$m" "$threads" "$n"; done
if [ -f models/meadow-nano.gguf ]; then "$build/bench/bench_decide" models/meadow-nano.gguf "$threads" "$n"; fi
# all-MiniLM-L6-v2 (scripts/fetch_models.sh), the meadow-reader's base: encoder rows.
if [ -n "${XDG_CACHE_HOME:-}" ]; then cache="$XDG_CACHE_HOME/meadow-mind/models"; else
  cache="$HOME/.meadow-mind/models"; fi
minilm="$cache/minilm-l6.gguf"
if [ -f "$minilm" ]; then "$build/bench/bench_decide" "$minilm" "$threads" "$n"; fi
