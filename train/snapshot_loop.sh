#!/usr/bin/env bash
# Trains a run on in chunks, keeping a snapshot (checkpoint + GGUF) after each chunk and
# appending its built-in exams (exam_torch.py) and episode verdicts (the C++ runtime) to
# RUN/sel.txt, so a checkpoint can be chosen by what the tasks measure, not by the last step.
#   train/snapshot_loop.sh RUN CHUNK UNTIL_STEP [train.py flags...]
# Note: choosing a snapshot this way selects on the built-in tasks themselves (their
# sentences stay held out of the corpus, but the choice has seen their scores).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=/usr/bin/python3
CLI="${CLI:-build/meadow-mind}"
. train/blas_env.sh  # OpenBLAS kernels pinned for reproducible runs
if [ $# -lt 3 ] || ! [[ $2 =~ ^[1-9][0-9]*$ && $3 =~ ^[0-9]+$ ]] || [ ! -f "$1/ckpt.pt" ]; then
  echo "usage: $0 RUN CHUNK UNTIL_STEP [train.py flags...]  (RUN/ckpt.pt must exist; CHUNK, UNTIL_STEP: steps)" >&2
  exit 2
fi
RUN=$1 CHUNK=$2 UNTIL=$3
shift 3
mkdir -p "$RUN/snap"
TASKS="$RUN/tasks.json"
"$CLI" list --json >"$TASKS"
step_of() { $PY -c "import torch,sys; print(torch.load(sys.argv[1], map_location='cpu', weights_only=False)['step'])" "$1"; }
while :; do
  cur=$(step_of "$RUN/ckpt.pt")
  [ "$cur" -ge "$UNTIL" ] && break
  $PY -m train.train --run "$RUN" --steps $((cur + CHUNK)) "$@" >>"$RUN/train.out" 2>&1
  step=$(step_of "$RUN/ckpt.pt")
  if [ "$step" -le "$cur" ]; then  # e.g. a sticky --total-minutes reached: pass --total-minutes 1e9
    echo "no progress past step $cur (see $RUN/train.out); stopping" >&2
    exit 1
  fi
  cp "$RUN/ckpt.pt" "$RUN/snap/$step.pt"
  $PY -m train.export_gguf --ckpt "$RUN/snap/$step.pt" --out "$RUN/snap/$step.gguf" >/dev/null
  {
    echo "== step $step"
    $PY -m train.exam_torch --ckpt "$RUN/snap/$step.pt" --tasks "$TASKS"
    for t in cartpole mountaincar lunarlander; do
      "$CLI" play "$t" --model "$RUN/snap/$step.gguf" --episodes 10 2>&1 | grep '^verdict' | sed "s/^/$t /" || true
    done
  } >>"$RUN/sel.txt"
done
