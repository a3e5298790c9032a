#!/usr/bin/env bash
# Decision latency of two bench_decide builds side by side in one run (e.g. before and after a
# change): the two binaries alternate, ROUNDS times each, on the same model and threads, and
# the table gives each row's median p50 over the rounds and the after/before ratio.
# Usage: bench/compare_decide.sh BEFORE_BIN AFTER_BIN MODEL [threads=1] [decisions=300] [rounds=5]
set -euo pipefail
before="${1:?bench_decide binary (before)}"
after="${2:?bench_decide binary (after)}"
model="${3:?model.gguf}"
threads="${4:-1}"
n="${5:-300}"
rounds="${6:-5}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for r in $(seq "$rounds"); do
  "$before" "$model" "$threads" "$n" >"$tmp/before.$r"
  "$after" "$model" "$threads" "$n" >"$tmp/after.$r"
done
# Rows "  NAME   p50   X ms ...": NAME is what precedes "p50".
p50s() { awk -v row="$1" 'index($0, "p50") { name = substr($0, 1, index($0, "p50") - 1);
  gsub(/^ +| +$/, "", name); if (name == row) { for (i = 1; i <= NF; ++i) if ($i == "p50") print $(i + 1) } }' "$tmp"/"$2".*; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "model $model, $threads thread(s), $n decisions per run, $rounds alternating rounds"
printf '%-36s %12s %12s %8s\n' "p50 ms (median of rounds)" before after ratio
grep -h "p50 " "$tmp/before.1" | sed 's/p50.*//; s/^ *//; s/ *$//' | while read -r row; do
  b=$(p50s "$row" before | median)
  a=$(p50s "$row" after | median)
  printf '%-36s %12.3f %12.3f %8.3f\n' "$row" "$b" "$a" "$(awk -v a="$a" -v b="$b" 'BEGIN { print a / b }')"
done
