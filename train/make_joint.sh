#!/usr/bin/env bash
# Joins the scene branch and the word-table branch of the recipe into one model (issue 4):
# stitch.py puts the two side by side (block-diagonal, logits summed), then a short fine-tune
# on stage 13 (scenes with word tables) replaying both branches' stages teaches the halves
# to share the residual norms and which half to trust; the lr anneals to 5 % at the end; then
# the shorter phases of PHASES (lower lr, each annealed over its end).
#   WORDS=train/runs/words/ckpt.pt RUN=train/runs/joint train/make_joint.sh
#     (resumable; then export_gguf.py / measure_model.sh; SCENES defaults to the committed scene
#     branch in the training cache, train/checkpoints.md)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=/usr/bin/python3
. train/blas_env.sh  # OpenBLAS kernels pinned for reproducible runs
. train/phases.sh    # check_phases, run_phases
. train/cache_env.sh # CHECKPOINTS: the training cache's checkpoints (train/checkpoints.md)
SCENES="${SCENES:-$CHECKPOINTS/nano/ckpt.pt}"
WORDS="${WORDS:-train/runs/words/ckpt.pt}"
RUN="${RUN:-train/runs/joint}"
STEPS="${STEPS:-4000}"      # fine-tune steps after the stitch (j2, j3 in train/README.md)
ANNEAL="${ANNEAL:-3000}"    # the last ANNEAL of them decay the lr linearly to 5 %
MINUTES="${MINUTES:-60}"
STAGE="${STAGE:-13}"        # the stage the pair is fine-tuned on
REPLAY="${REPLAY:-9,10,11,12,22,23,24,25}"  # both branches' stages, 40 % of each batch
# then these phases, in order: stage steps lr replay mix-prev annealed-steps [train.py flags]
# (PHASES='' skips them; flags such as --aux-binding 1 are sticky: they stay on in later phases)
W=22,23,24,25  # the word branch's stages, replayed in every phase
S=9,10,11,12,13,14,30,$W  # the scene stages and the word branch's, replayed in every phase
PHASES="${PHASES-37 2000 5e-4 $S 0.3 500
51 2500 3e-4 $S,47,53 0.3 500 --aux-binding 1 --aux-clause 1 --aux-letter 1
62 2000 3e-4 $S,47,53,51 0.3 500
61 9000 5e-4 9,10,11,12,13,14,14,30,$W,47,53,62,51,37 0.3 3500
25 3000 2e-4 9,10,11,12,13,14,14,30,22,23,24,47,53,62,51,37,61,61,61 0.5 1000
61 1500 1e-4 9,10,11,12,13,14,14,30,$W,25,47,53,62,51,37 0.3 1000
65 2000 2e-4 9,10,11,12,13,14,14,30,$W,25,47,53,62,51,37,61 0.3 1000
66 2000 2e-4 9,10,11,12,13,14,14,30,$W,25,47,53,62,51,37,61,65 0.3 1000
67 3000 3e-4 9,10,11,12,13,14,14,30,$W,25,47,53,62,51,37,61,65,66 0.3 1500
66 1500 1e-4 9,10,11,12,13,14,14,30,$W,25,47,53,62,51,37,61,65,67 0.3 1000
66 1500 1e-4 9,10,11,12,13,14,14,30,$W,25,47,53,62,51,37,61,65,67 0.3 1000}"
# then SOUP (optional, empty by default): fine-tunes of the last PHASES step, each in its own run
# (RUN-soup1, RUN-soup2, ..., two at a time, one per core), same line format; the model is then
# the mean of that step's weights and theirs (train/average.py), in RUN/ckpt.pt; RUN/last.pt
# keeps the last PHASES step. Session 17 shipped such a soup before the stage-61 phase.
SOUP="${SOUP-}"

# check every PHASES and SOUP line before any training starts
check_phases "$PHASES
$SOUP"

[ -f "$RUN/ckpt.pt" ] || $PY -m train.stitch --a "$SCENES" --b "$WORDS" --out "$RUN/ckpt.pt"
step() { ckpt_step "$RUN/ckpt.pt"; }
[ -f "$RUN/start_step" ] || step > "$RUN/start_step"
s0=$(cat "$RUN/start_step")
$PY -m train.train --run "$RUN" --minutes "$MINUTES" --steps $((s0 + STEPS)) --set-stage "$STAGE" --max-stage "$STAGE" --path '' \
  --lr 1e-3 --lr2 0 --warmup 200 --replay "$REPLAY" --mix-prev 0.4 --promote 2 \
  --anneal $((s0 + STEPS - ANNEAL)) $((s0 + STEPS)) --eval-every 200 --eval-tables 60 "$PRECISION" --threads "$THREADS"
# Why these phases (train/README.md, sessions 10-22; the 17-phase, 47,000-step joint that
# shipped until session 21, je10, is in git history, and the stages below are its own):
#  37: stage 34 (relational word tables beside still clauses naming any option) with "still D of
#      the N" clauses in the word relational tables, aimed at any option;
#  51: reword level 2 with neutral-aimed still clauses and both evidence marks; its probes read on
#      layers 0-1 which situation word is the subject and which its direction (--aux-binding),
#      the letter of the option a clause names by its text (--aux-clause) and the answer letter
#      at the subject's direction word (--aux-letter); the flags are sticky from here;
#  62: the marked still-clause lookup drill (53) with clauses naming their option by letter half
#      the time, as mountaincar's rule does: before it the model read "still left / right of the
#      middle" as the same clause (B ~0.6 for both); after it each variant of the rule right;
#  61: the full mix: stage 56 (relational word tables in four options of two direction pairs)
#      with more scene place phrases, the hazard's phrase first in half the toward / away
#      situations and their directions in other words; the drills replayed, 14 twice.
#      (jr5, session 22: 19,500 steps after the stitch, ~78 minutes.)
#  25, 61: the word tables (stage 13's, no scenes) as half of each batch at lr 2e-4 (match tables
#      0.825 -> 0.859, rephrasings 0.915 -> 0.894), then the mix at lr 1e-4, which wins the
#      rephrasings back and keeps the match gain (jr5n, session 22).
#  65: stage 61 with 70 % of the scene situations reworded (not 30 %), at lr 2e-4: rephrasings
#      0.915 -> 0.957 (only cartpole's two concessions missed; lunarlander's "falling too
#      quickly" had sat at A 0.49 / C 0.47); the synthetic and relabelling rows level with
#      jr5n's at 600 tables (jq1, session 23).
#  66: stage 65 with 70 % of the scene tables' "otherwise" options named by any text (an action,
#      another idle phrase, a dictionary noun), not one of four idle phrases: with those the
#      model found the default by its text, and lunarlander's rule with "do nothing" (held
#      out) under another letter than A sent the "steady" items to another option (35 of the
#      240 permuted decisions; relabelled exams 0.957). After it: 0 of 240, relabelled exams
#      47/47, rephrasings 46/47, the synthetic rows level at 600 tables (jd1, session 24).
#  67, 66, 66: half the scene tables everyday-English event tables (corpus/events.py: "If the
#      kettle is whistling, choose A; if the dog barks, choose B."), read at 0.53 before, then
#      stage 66 twice at lr 1e-4, which win back the rephrasings and relabelled exams that stage
#      67 alone cost: event tables 0.76, the runtime's kettle / river tables 18 of 24 (12
#      before), synthetic 0.972 and unseen 0.957 at 600 tables (jd1: 0.969 / 0.955), rephrasings
#      45/47 (jh1, session 24; train/README.md has the shorter variant jf1).
#      The last step ships.
run_phases "$RUN" $((s0 + STEPS)) "$PHASES"
start=$PHASES_END

if [ -n "$SOUP" ] && [ ! -f "$RUN/last.pt" ]; then
  [ "$(step)" -eq "$start" ] || { echo "make_joint.sh: $RUN is not at the last PHASES step $start" >&2; exit 1; }
  i=0
  pids=()
  while read -r stage steps lr replay mix anneal extra; do
    [ -n "$stage" ] || continue
    i=$((i + 1))
    B="$RUN-soup$i"
    mkdir -p "$B"
    [ -f "$B/ckpt.pt" ] || cp "$RUN/ckpt.pt" "$RUN/config.json" "$B/"
    # shellcheck disable=SC2086  # $extra holds train.py flags
    run_phase "$B" $((start + steps)) 250 1 $stage $steps $lr $replay $mix $anneal $extra > "$B.out" 2>&1 &
    pids+=($!)
    if [ ${#pids[@]} -eq 2 ]; then  # two at a time: one per core
      for p in "${pids[@]}"; do wait "$p"; done
      pids=()
    fi
  done <<< "$SOUP"
  for p in "${pids[@]}"; do wait "$p"; done
  cp "$RUN/ckpt.pt" "$RUN/last.pt"
  $PY -m train.average --out "$RUN/ckpt.pt" "$RUN/last.pt" $(for k in $(seq 1 "$i"); do echo "$RUN-soup$k/ckpt.pt"; done)
fi
