# shellcheck shell=bash
# Sourced by the recipe scripts that fine-tune in phases (make_joint.sh, make_polish.sh).
# A phase list holds one line per phase: stage steps lr replay mix-prev annealed-steps [train.py flags]
# (flags such as --aux-binding 1 or --read-softmax are sticky: they stay on in later phases).
# Needs PY set by the caller.
# bfloat16 autocast on both cores (train.py --bf16 --threads 2): 2.8x the float32 one-thread
# step with the answer-slot last layer (bench_speed.py); PRECISION=--no-bf16 THREADS=1 for float32
PRECISION="${PRECISION:---bf16}"
THREADS="${THREADS:-2}"

# exits 2 naming the first bad line, before any training starts
check_phases() {
  local stage steps lr replay mix anneal extra
  while read -r stage steps lr replay mix anneal extra; do
    [ -n "$stage" ] || continue
    if ! [[ "$stage $steps $anneal" =~ ^[0-9]+\ [0-9]+\ [0-9]+$ ]] || [ -z "$mix" ] || [ "$anneal" -gt "$steps" ] ||
      { [ -n "$extra" ] && [[ "$extra" != --* ]]; }; then
      echo "$(basename "$0"): bad PHASES or SOUP line '$stage $steps $lr $replay $mix $anneal $extra'" \
        "(want: stage steps lr replay mix-prev annealed-steps [--flags], annealed <= steps)" >&2
      exit 2
    fi
  done <<< "$1"
}

# the step of checkpoint $1
ckpt_step() { $PY -c "import torch; print(torch.load('$1', weights_only=False)['step'])"; }

# one phase line ($5...) on run $1 up to step $2, evaluating every $3 steps, on $4 threads
run_phase() {
  local run=$1 end=$2 every=$3 threads=$4 stage=$5 lr=$7 replay=$8 mix=$9 anneal=${10}
  shift 10
  $PY -m train.train --run "$run" --total-minutes 1e9 --steps "$end" --set-stage "$stage" --max-stage "$stage" \
    --lr "$lr" --warmup 100 --replay "$replay" --mix-prev "$mix" --promote 2 \
    --anneal $((end - anneal)) "$end" --eval-every "$every" --eval-tables 60 "$PRECISION" --threads "$threads" "$@" < /dev/null
}

# the phases of list $3 on run $1, the first starting at step $2; a phase runs once the previous
# ones have reached their last step, so a rerun resumes where a stopped one was. Sets PHASES_END
# to the last phase's last step.
run_phases() {
  local run=$1 start=$2 stage steps lr replay mix anneal extra end now
  while read -r stage steps lr replay mix anneal extra; do
    [ -n "$stage" ] || continue
    end=$((start + steps))
    now=$(ckpt_step "$run/ckpt.pt")  # once per phase
    if [ "$now" -ge "$start" ] && [ "$now" -lt "$end" ]; then
      # shellcheck disable=SC2086  # $extra holds train.py flags
      run_phase "$run" "$end" 200 "$THREADS" $stage $steps $lr $replay $mix $anneal $extra
    fi
    start=$end
  done <<< "$3"
  # shellcheck disable=SC2034  # read by the caller
  PHASES_END=$start
}
