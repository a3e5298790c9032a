#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ with clang, ASan and UBSan into build-fuzz/, then runs
# each for SECONDS (default 30) from its committed seeds (fuzz/corpus/NAME) plus what earlier
# runs found (build-fuzz/corpus/NAME). Exits non-zero on any crash, leak, timeout or
# out-of-memory; the input that did it is saved as build-fuzz/artifacts/TARGET-*.
# Usage: scripts/fuzz.sh [seconds] [target ...]   (targets: fuzz_gguf fuzz_tokenizer fuzz_json
# fuzz_prompt fuzz_server fuzz_pull fuzz_request fuzz_http; default all). NICE=19 runs them under nice.
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-30}"
shift || true
targets=("$@")
((${#targets[@]})) || targets=(fuzz_gguf fuzz_tokenizer fuzz_json fuzz_prompt fuzz_server fuzz_pull fuzz_request fuzz_http)

# clang-14 and libFuzzer's runtime come from Debian through the project's setup script.
command -v clang++-14 >/dev/null 2>&1 && [ -f /usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a ] ||
  scripts/setup.sh build
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true
cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=clang-14 \
  -DCMAKE_CXX_COMPILER=clang++-14 -DMEADOW_FUZZ=ON -DMEADOW_TESTS=OFF >/dev/null
nice -n "${NICE:-0}" cmake --build build-fuzz -j"$(nproc)" --target "${targets[@]}"

mkdir -p build-fuzz/artifacts build-fuzz/logs
failed=()
for t in "${targets[@]}"; do
  seeds="fuzz/corpus/${t#fuzz_}"
  found="build-fuzz/corpus/${t#fuzz_}"
  mkdir -p "$found"
  echo "== $t: ${secs}s"
  # -timeout: one input taking 10 s is a hang; -rss_limit_mb: a leak or a runaway allocation.
  if ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    nice -n "${NICE:-0}" "build-fuzz/fuzz/$t" -max_total_time="$secs" -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="build-fuzz/artifacts/$t-" \
    "$found" "$seeds" >"build-fuzz/logs/$t.log" 2>&1; then
    grep -E "^(#[0-9]+[[:space:]]+DONE|stat::number_of_executed_units|stat::peak_rss_mb)" \
      "build-fuzz/logs/$t.log" || true
  else
    failed+=("$t")
    tail -n 40 "build-fuzz/logs/$t.log"
  fi
done
if ((${#failed[@]})); then
  echo "fuzz: FAILED: ${failed[*]} (logs in build-fuzz/logs, inputs in build-fuzz/artifacts)"
  exit 1
fi
echo "fuzz: ${#targets[@]} targets, ${secs}s each, no crash"
