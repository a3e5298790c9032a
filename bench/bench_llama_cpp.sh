#!/usr/bin/env bash
# Side by side with llama.cpp in one run (issue 47, item 2): prompt processing (one forward of
# 20, 84 and 128 tokens) and single-token decoding, tokens/s, on the same GGUF files and the
# same thread count, our runtime (float path and MEADOW_MATMUL=int) alternating with llama.cpp.
#
# Usage: bench/bench_llama_cpp.sh LLAMA_BUILD_DIR [MODEL.gguf ...]
#   LLAMA_BUILD_DIR  a llama.cpp build made by hand from its public source, outside this
#                    repository (bin/llama-bench, optionally bin/llama-diffusion-cli). This
#                    script never builds or downloads llama.cpp; without a build it says so and
#                    exits 0 (skip).
#   MODEL.gguf       default: /tmp/meadow-bench/dream7b-q4_k.gguf (bench/run_bench_forward.sh
#                    writes it) and ~/.meadow-mind/models/smollm2-135m.gguf, those present.
# Environment: THREADS (2), REPS (2: repetitions inside each process, best kept), ROUNDS (2:
#   alternations ours-float / ours-int / llama.cpp, order reversed every other round),
#   PP ("20 84 128"), TG (16: tokens llama-bench decodes one at a time), MEADOW_BUILD (build:
#   configured with -DMEADOW_BENCH=ON; bench_forward is built there if missing), LLAMA_ARGS
#   (extra llama-bench arguments, e.g. "--poll 0": its workers then sleep instead of spinning,
#   which matters on an oversubscribed machine).
#
# What is compared, row by row (tokens/s, best sample of all rounds, wall clock):
#   ppN  ours: bench_forward MODEL THREADS N REPS nosgemm (one N-token forward, logits at the
#        last position); llama.cpp: llama-bench -p N -n 0 (one N-token batch; all logits are
#        not computed there either). For a model llama-bench refuses, llama-diffusion-cli with
#        one diffusion step over N positions is timed instead (its "time per step" minus its
#        "sampling time per step"), and the row says so.
#   tg1  ours: a 1-token forward (bench_forward ... 1); llama.cpp: llama-bench -p 0 -n TG
#        (TG tokens decoded one at a time against its KV cache, so its later tokens attend to
#        up to TG-1 cached positions; ours attends to none: near equal at TG=16).
# CPU use is printed next to each figure: the process's CPU seconds / (wall seconds x THREADS)
# (for llama.cpp the whole process, load and warm-up included), since the machine is shared.
set -euo pipefail
cd "$(dirname "$0")/.."

usage="usage: bench/bench_llama_cpp.sh LLAMA_BUILD_DIR [MODEL.gguf ...]"
llama_dir="${1:?$usage}"
shift
threads="${THREADS:-2}"
reps="${REPS:-2}"
rounds="${ROUNDS:-2}"
read -r -a pp_sizes <<<"${PP:-20 84 128}"
tg="${TG:-16}"
meadow_build="${MEADOW_BUILD:-build}"

# A llama.cpp tool in its build's bin/ (CMake) or top folder (older Makefile builds); "" if absent.
find_tool() {
  local c
  for c in "$llama_dir/bin/$1" "$llama_dir/$1"; do
    if [[ -x "$c" ]]; then
      echo "$c"
      return
    fi
  done
}
llama_bench=$(find_tool llama-bench)
diffusion_cli=$(find_tool llama-diffusion-cli)
if [[ -z "$llama_bench" ]]; then
  echo "SKIP: no llama.cpp build at '$llama_dir' (no bin/llama-bench there). Build llama.cpp"
  echo "      by hand from its public source outside this repository, then pass its build"
  echo "      directory; this script never builds or downloads it."
  exit 0
fi

models=("$@")
if [[ ${#models[@]} -eq 0 ]]; then
  for m in /tmp/meadow-bench/dream7b-q4_k.gguf "$HOME/.meadow-mind/models/smollm2-135m.gguf"; do
    if [[ -f "$m" ]]; then models+=("$m"); fi
  done
fi
if [[ ${#models[@]} -eq 0 ]]; then
  echo "no models: pass MODEL.gguf files (see the header of this script)" >&2
  exit 2
fi

forward="$meadow_build/bench/bench_forward"
if [[ ! -x "$forward" ]]; then
  if [[ -f "$meadow_build/CMakeCache.txt" ]]; then
    cmake --build "$meadow_build" --target bench_forward
  else
    echo "no $forward: configure $meadow_build with -DMEADOW_BENCH=ON first" >&2
    exit 2
  fi
fi

logs=$(mktemp -d /tmp/bench_llama_cpp.XXXXXX)
results="$logs/results.tsv"  # model, test, side, round, tok/s, cpu use, how
: >"$results"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores"
echo "threads $threads, reps $reps, rounds $rounds; llama.cpp: $llama_bench ${LLAMA_ARGS:-}"
echo "logs: $logs"

# cpu_use TIMEFILE: CPU seconds / (wall seconds x threads) of the process /usr/bin/time ran.
cpu_use() {
  awk -v t="$threads" '{ if ($1 > 0) printf "%.2f", ($2 + $3) / ($1 * t); else print "nan" }' "$1"
}

# ours MODEL TEST N MODE ROUND: bench_forward with MEADOW_MATMUL=MODE (float or int).
ours() {
  local model=$1 test=$2 n=$3 mode=$4 round=$5
  local log
  log="$logs/$(basename "$model").$test.$mode.$round.log"
  if ! MEADOW_MATMUL=$mode /usr/bin/time -f '%e %U %S' -o "$log.time" \
    "$forward" "$model" "$threads" "$n" "$reps" nosgemm >"$log" 2>&1; then
    echo "  ours $mode failed: $(tail -n 1 "$log")"
    return 0
  fi
  # "forward: W s wall (C s cpu/thread) = X tokens/s wall (Y by cpu)"
  local line tps use
  line=$(grep '^forward:' "$log")
  tps=$(awk '{ for (i = 1; i <= NF; ++i) if ($i == "tokens/s") print $(i - 1) }' <<<"$line")
  use=$(awk '{ printf "%.2f", $5 / $2 }' <<<"${line//(/}")
  printf '%s\t%s\t%s\t%s\t%s\t%s\tbench_forward\n' "$(basename "$model")" "$test" "$mode" \
    "$round" "$tps" "$use" >>"$results"
  echo "  ours $mode: $tps tok/s (cpu use $use)"
}

# llama MODEL TEST N ROUND: llama-bench (pp: -p N -n 0; tg: -p 0 -n TG); the best sample.
llama() {
  local model=$1 test=$2 n=$3 round=$4
  local log
  log="$logs/$(basename "$model").$test.llama.$round"
  local args=(-p "$n" -n 0)
  [[ $test == tg1 ]] && args=(-p 0 -n "$tg")
  local extra=()
  read -r -a extra <<<"${LLAMA_ARGS:-}"
  args+=("${extra[@]}")
  if /usr/bin/time -f '%e %U %S' -o "$log.time" "$llama_bench" -m "$model" -t "$threads" \
    -r "$reps" "${args[@]}" -o jsonl >"$log.jsonl" 2>"$log.err" && [[ -s "$log.jsonl" ]]; then
    local tps
    tps=$(python3 -c '
import json, sys
r = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
n = r["n_prompt"] + r["n_gen"]
print("%.2f" % (n / (min(r["samples_ns"]) * 1e-9)))' "$log.jsonl")
    printf '%s\t%s\tllama\t%s\t%s\t%s\tllama-bench %s\n' "$(basename "$model")" "$test" "$round" \
      "$tps" "$(cpu_use "$log.time")" "${args[*]}" >>"$results"
    echo "  llama.cpp: $tps tok/s (cpu use $(cpu_use "$log.time"))"
    return 0
  fi
  echo "  llama-bench failed on this model: $(grep -v '^$' "$log.err" | tail -n 1)"
  if [[ $test == tg1 || -z "$diffusion_cli" ]]; then return 0; fi
  # One diffusion step over n positions = one n-token forward (+ sampling, subtracted).
  # (its chat template wraps the prompt: at small n the prompt alone fills the positions and it
  # fails, "diffusion generation failed"; the row then stays n/a)
  local prompt="Hi"
  if /usr/bin/time -f '%e %U %S' -o "$log.time" "$diffusion_cli" -m "$model" -t "$threads" \
    -p "$prompt" -ub "$n" -b "$n" -c "$n" --diffusion-steps 1 --diffusion-eps 0.001 \
    --temp 0 >"$log.diffusion" 2>&1 && grep -q 'sampling time per step:' "$log.diffusion"; then
    local tps
    tps=$(awk -v n="$n" '/time per step:/ {
        for (i = 1; i <= NF; ++i) {
          if ($i != "step:" || $(i - 1) != "per") continue
          if ($(i - 3) == "sampling") q = $(i + 1) + 0; else s = $(i + 1) + 0
        }
        printf "%.2f", n / ((s - q) / 1000) }' "$log.diffusion")
    printf '%s\t%s\tllama\t%s\t%s\t%s\tdiffusion-cli 1 step\n' "$(basename "$model")" "$test" \
      "$round" "$tps" "$(cpu_use "$log.time")" >>"$results"
    echo "  llama.cpp (diffusion-cli, 1 step): $tps tok/s"
  else
    echo "  llama-diffusion-cli failed too: $(grep -v '^$' "$log.diffusion" | tail -n 1)"
  fi
}

tests=()
for n in "${pp_sizes[@]}"; do tests+=("pp$n"); done
tests+=(tg1)
for model in "${models[@]}"; do
  for ((round = 1; round <= rounds; ++round)); do
    for test in "${tests[@]}"; do
      n=${test#pp}
      [[ $test == tg1 ]] && n=1
      echo "$(basename "$model") $test round $round (load average $(cut -d' ' -f1 /proc/loadavg))"
      if ((round % 2)); then
        ours "$model" "$test" "$n" float "$round"
        ours "$model" "$test" "$n" int "$round"
        llama "$model" "$test" "$n" "$round"
      else
        llama "$model" "$test" "$n" "$round"
        ours "$model" "$test" "$n" int "$round"
        ours "$model" "$test" "$n" float "$round"
      fi
    done
  done
done

echo
python3 - "$results" "${tests[@]}" <<'EOF'
import collections, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
tests = sys.argv[2:]
best = collections.defaultdict(lambda: (0.0, "", ""))
for model, test, side, rnd, tps, use, how in rows:
    if float(tps) > best[model, test, side][0]:
        best[model, test, side] = (float(tps), use, how)
models = list(dict.fromkeys(r[0] for r in rows))
print("tokens/s (best of all samples, wall clock; cpu use in parentheses)")
print("| model | test | ours float | ours int | llama.cpp | float/llama | int/llama |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
for m in models:
    for t in tests:
        f, i, l = (best[m, t, s] for s in ("float", "int", "llama"))
        cell = lambda v: f"{v[0]:.2f} ({v[1]})" if v[0] else "n/a"
        ratio = lambda a: f"{a[0] / l[0]:.2f}" if a[0] and l[0] else "n/a"
        note = " (llama.cpp via diffusion-cli)" if l[2].startswith("diffusion") else ""
        print(f"| {m} | {t}{note} | {cell(f)} | {cell(i)} | {cell(l)} | {ratio(f)} | {ratio(i)} |")
EOF
