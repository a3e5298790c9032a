#!/usr/bin/env bash
# Retrains the embedded model from scratch: contamination check, training (curriculum,
# resumable: rerun the same command to continue), evaluation, GGUF export.
# The recipe below has NOT yet produced a model that passes issue 4's bars. Measured so far
# (train/README.md, session 2): stage 0 leaves chance at ~800 steps and stage 1 reaches 0.90
# after the lr drop to 1e-3; the later stages are not yet measured.
#   RUN=train/runs/meadow-nano MINUTES=150 train/make_model.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PY=/usr/bin/python3
export OPENBLAS_CORETYPE="${OPENBLAS_CORETYPE:-SkylakeX}"  # Debian OpenBLAS misdetects this VM's CPU
export OPENBLAS_NUM_THREADS="${THREADS:-2}"  # torch.set_num_threads does not bound OpenBLAS
RUN="${RUN:-train/runs/meadow-nano}"
MINUTES="${MINUTES:-150}"
OUT="${OUT:-models/meadow-nano.gguf}"

$PY train/heldout/check_contamination.py --examples 2000
$PY train/train.py --run "$RUN" --total-minutes "$MINUTES" --seed 0 \
  --dim 64 --layers 2 --heads 4 --kv-heads 2 --ffn 192 --batch 16 --lr 3e-3 --lr2 1e-3 --lr2-acc 0.75 \
  --max-len 384 --promote 0.9 --mix-prev 0.3 --threads "${THREADS:-2}"
$PY train/evaluate.py --ckpt "$RUN/ckpt.pt" --threads "${THREADS:-2}"
$PY train/export_gguf.py --ckpt "$RUN/ckpt.pt" --out "$OUT"
