#!/usr/bin/env bash
# Polishes a spread model (issue 4): after spread_unread.py has moved the embeddings of the
# tokens no training text holds, a short fine-tune in phases (train/phases.sh) with the read
# softmax (train.py --read-softmax: an unread token's row gets no gradient, so the spread stays)
# re-learns the word tables (stage 25 as half of each batch), then the full mix at a low lr wins
# back whatever the word tables cost elsewhere. Run on the spread checkpoint's own folder:
#   RUN=train/runs/meadow-nano-spread train/make_polish.sh     (resumable; then export_gguf.py)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=/usr/bin/python3
. train/blas_env.sh  # OpenBLAS kernels pinned for reproducible runs
. train/phases.sh    # check_phases, run_phases
RUN="${RUN:?RUN= the folder of a spread checkpoint (spread_unread.py --out RUN/ckpt.pt)}"
W=22,23,24,25
R=9,10,11,12,13,14,14,30  # the scene stages (14 twice), replayed in every phase
# stage steps lr replay mix-prev annealed-steps [train.py flags]: make_joint.sh's stage-25 phase
# again with the read softmax (sticky) and the later stages 65-67 replayed too (without them the
# event tables fell 0.73 -> 0.66), then its stage-66 phase (session 27); then three times a cycle with
# the event tables (stage 67) as a larger share: a stage-25 phase replaying 67 six times, then
# a stage-67 phase replaying the word tables (25) four times. Alone, a stage-25 phase lifts the
# match tables and drops the event tables, a stage-67 phase the reverse; this pair lifts both
# (train/README.md, session 28).
E=$R,22,23,24,47,53,62,51,37,61,61,61,65,66,67,67,67,67,67,67
CYCLE="25 3000 2e-4 $E 0.5 1000
67 1500 1e-4 $R,$W,25,25,25,47,53,62,51,37,61,65,66 0.3 1000"
POLISH="${POLISH-25 3000 2e-4 $R,22,23,24,47,53,62,51,37,61,61,61,65,66,67 0.5 1000 --read-softmax
66 1500 1e-4 $R,$W,25,47,53,62,51,37,61,65,67 0.3 1000
$CYCLE
$CYCLE
$CYCLE}"
check_phases "$POLISH"
[ -f "$RUN/ckpt.pt" ] || { echo "make_polish.sh: no checkpoint $RUN/ckpt.pt" >&2; exit 2; }
$PY -c "import sys, torch; sys.exit(0 if torch.load('$RUN/ckpt.pt', weights_only=False).get('spread') else 1)" ||
  { echo "make_polish.sh: $RUN/ckpt.pt is not a readable spread checkpoint (run train/spread_unread.py first)" >&2; exit 2; }
# the step the polish starts from, kept so that a rerun resumes the same phases
[ -f "$RUN/polish_start" ] || ckpt_step "$RUN/ckpt.pt" > "$RUN/polish_start"
run_phases "$RUN" "$(cat "$RUN/polish_start")" "$POLISH"
