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
# event tables fell 0.73 -> 0.66), then its stage-66 phase (session 27); then five times a cycle with
# the event tables (stage 67) as a larger share: a stage-25 phase replaying 67 six times, then
# a stage-67 phase replaying the word tables (25) four times. Alone, a stage-25 phase lifts the
# match tables and drops the event tables, a stage-67 phase the reverse; this pair lifts both
# (train/README.md, session 28). Then twice the same cycle on stage 68, the word tables with a
# third of their words made up, which lifts the unseen-word match tables (session 29).
E=$R,22,23,24,47,53,62,51,37,61,61,61,65,66,67,67,67,67,67,67
CYCLE="25 3000 2e-4 $E 0.5 1000
67 1500 1e-4 $R,$W,25,25,25,47,53,62,51,37,61,65,66 0.3 1000"
MADE_UP="68 3000 2e-4 $E 0.5 1000
67 1500 1e-4 $R,$W,25,68,68,47,53,62,51,37,61,65,66 0.3 1000"
# SOUP_STEPS: polish steps (counted from its start, each the end of a POLISH line) whose
# checkpoints are kept (RUN/keep-N.pt) and averaged into the final model (train/average.py; the
# last one's optimizer and counters); empty for the last step alone. The default polish ends on
# the mean of its two made-up cycles: one cycle's end reads a few tenths of a point up or down
# from the next on each row, and their mean keeps the better of most rows (session 29).
[ -n "${POLISH+x}" ] || SOUP_STEPS="${SOUP_STEPS-31500 36000}"
SOUP_STEPS="${SOUP_STEPS-}"
POLISH="${POLISH-25 3000 2e-4 $R,22,23,24,47,53,62,51,37,61,61,61,65,66,67 0.5 1000 --read-softmax
66 1500 1e-4 $R,$W,25,47,53,62,51,37,61,65,67 0.3 1000
$CYCLE
$CYCLE
$CYCLE
$CYCLE
$CYCLE
$MADE_UP
$MADE_UP}"
# POST: phases after the soup (none by default; make_model.sh asks for events), from the mean with
# a fresh optimizer (the mean's optimizer state is one parent's; the shipped checkpoint carries
# none). POST=events, the shipped model since session 32: session 31's three event cycles (event
# tables only, stage 69, then 71 (one-form predicates), then 74 (predicates ending in one BPE
# token), each followed by the stage-67 mix; they lift the event tables but cost the match tables),
# then CYCLE with stage 74 in place of 67, which wins the match tables back and keeps the events
# (session 32: held-out synthetic 0.979 -> 0.983, shared-last-token event tables 0.59 -> 0.79).
EVENT_CYCLE="3000 2e-4 $E 0.5 1000
67 1500 1e-4 $R,$W,25,68,68,47,53,62,51,37,61,65,66 0.3 1000"
CYCLE74="25 3000 2e-4 $R,22,23,24,47,53,62,51,37,61,61,61,65,66,74,74,74,74,74,74 0.5 1000
74 1500 1e-4 $R,$W,25,25,25,47,53,62,51,37,61,65,66 0.3 1000"
POST="${POST-}"
[ "$POST" != events ] || POST="69 $EVENT_CYCLE
71 $EVENT_CYCLE
74 $EVENT_CYCLE
$CYCLE74"
check_phases "$POLISH"
check_phases "$POST"
ends=" $(t=0; while read -r _ n _; do [ -n "$n" ] && { t=$((t + n)); echo -n "$t "; }; done <<< "$POLISH")"
for s in $SOUP_STEPS; do
  [[ "$ends" == *" $s "* ]] || { echo "make_polish.sh: SOUP_STEPS: $s is not the end of a POLISH line (ends:$ends)" >&2; exit 2; }
done
[ -f "$RUN/ckpt.pt" ] || { echo "make_polish.sh: no checkpoint $RUN/ckpt.pt" >&2; exit 2; }
$PY -c "import sys, torch; sys.exit(0 if torch.load('$RUN/ckpt.pt', weights_only=False).get('spread') else 1)" ||
  { echo "make_polish.sh: $RUN/ckpt.pt is not a readable spread checkpoint (run train/spread_unread.py first)" >&2; exit 2; }
# the step the polish starts from, kept so that a rerun resumes the same phases
[ -f "$RUN/polish_start" ] || ckpt_step "$RUN/ckpt.pt" > "$RUN/polish_start"
start0=$(cat "$RUN/polish_start")
start=$start0
if [ -f "$RUN/polish_soup" ]; then
  echo "make_polish.sh: the polish is done (the mean of $(cat "$RUN/polish_soup"))"
else
  while IFS= read -r line; do  # one line at a time, to keep the checkpoints the soup takes
    [ -n "$line" ] || continue
    run_phases "$RUN" "$start" "$line"
    start=$PHASES_END
    rel=$((start - start0))
    if [[ " $SOUP_STEPS " == *" $rel "* ]] && [ ! -f "$RUN/keep-$rel.pt" ]; then
      [ "$(ckpt_step "$RUN/ckpt.pt")" = "$start" ] || { echo "make_polish.sh: $RUN/ckpt.pt is not at step $start" >&2; exit 2; }
      cp "$RUN/ckpt.pt" "$RUN/keep-$rel.pt"
    fi
  done <<< "$POLISH"
  if [ -n "$SOUP_STEPS" ]; then
    # the last kept step first: the mean takes its step, optimizer state and counters
    # shellcheck disable=SC2046  # one path per step
    $PY -m train.average --out "$RUN/ckpt.pt" $(for s in $(tr ' ' '\n' <<< "$SOUP_STEPS" | sort -n -r); do echo "$RUN/keep-$s.pt"; done)
    echo "polish steps $SOUP_STEPS" > "$RUN/polish_soup"
  fi
fi
if [ -n "$POST" ]; then
  if [ ! -f "$RUN/post_start" ]; then
    $PY -c "import torch; p = '$RUN/ckpt.pt'; c = torch.load(p, weights_only=False); c['opt'] = None; torch.save(c, p)"
    ckpt_step "$RUN/ckpt.pt" > "$RUN/post_start"
  fi
  run_phases "$RUN" "$(cat "$RUN/post_start")" "$POST"
fi
