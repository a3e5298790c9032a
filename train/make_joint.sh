#!/usr/bin/env bash
# Joins the scene branch and the word-table branch of the recipe into one model (issue 4):
# stitch.py puts the two side by side (block-diagonal, logits summed), then a short fine-tune
# on stage 13 (scenes with word tables) replaying both branches' stages teaches the halves
# to share the residual norms and which half to trust; the lr anneals to 5 % at the end; then
# the shorter phases of PHASES (lower lr, each annealed over its end).
#   SCENES=train/checkpoints/nano/ckpt.pt WORDS=train/runs/words/ckpt.pt RUN=train/runs/joint \
#     train/make_joint.sh                 (resumable; then export_gguf.py / measure_model.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=/usr/bin/python3
export OPENBLAS_CORETYPE="${OPENBLAS_CORETYPE:-SkylakeX}"
export OPENBLAS_NUM_THREADS=1
SCENES="${SCENES:-train/checkpoints/nano/ckpt.pt}"
WORDS="${WORDS:-train/runs/words/ckpt.pt}"
RUN="${RUN:-train/runs/joint}"
STEPS="${STEPS:-4000}"      # fine-tune steps after the stitch (j2, j3 in train/README.md)
ANNEAL="${ANNEAL:-3000}"    # the last ANNEAL of them decay the lr linearly to 5 %
MINUTES="${MINUTES:-60}"
# bfloat16 autocast on both cores (train.py --bf16 --threads 2): 2.8x the float32 one-thread
# step with the answer-slot last layer (bench_speed.py); PRECISION=--no-bf16 THREADS=1 for float32
PRECISION="${PRECISION:---bf16}"
THREADS="${THREADS:-2}"
STAGE="${STAGE:-13}"        # the stage the pair is fine-tuned on
REPLAY="${REPLAY:-9,10,11,12,22,23,24,25}"  # both branches' stages, 40 % of each batch
# then these phases, in order: stage steps lr replay mix-prev annealed-steps [train.py flags]
# (PHASES='' skips them; flags such as --aux-binding 1 are sticky: they stay on in later phases)
W=22,23,24,25  # the word branch's stages, replayed in every phase
PHASES="${PHASES-33 2000 3e-4 9,10,11,12,13,14,$W 0.4 1000
14 2000 3e-4 9,10,11,12,13,30,$W 0.4 1500
34 3000 5e-4 9,10,11,12,13,14,30,$W 0.3 1500
34 3000 5e-4 9,10,11,12,13,14,30,$W 0.3 1500
37 2000 5e-4 9,10,11,12,13,14,30,$W 0.3 1000
39 2000 3e-4 9,10,11,12,13,14,30,$W 0.3 1000
40 4000 2e-4 9,10,11,12,13,14,30,$W 0.3 2000
47 4000 5e-4 9,10,11,12,13,14,30,$W 0.3 0 --aux-binding 1
48 3500 3e-4 9,10,11,12,13,14,30,$W,47 0.3 1000
50 2000 3e-4 9,10,11,12,13,14,30,$W,47 0.3 1000
51 1800 2e-4 9,10,11,12,13,14,30,$W,47 0.3 800
51 1200 1.5e-4 9,10,11,12,13,14,30,$W,47,45 0.3 500
52 2000 2e-4 9,10,11,12,13,14,30,$W,47,53 0.3 1000 --aux-clause 1
56 2500 2e-4 9,10,11,12,13,14,30,$W,47,53 0.3 0
56 2500 2e-4 9,10,11,12,13,14,30,$W,47,53 0.3 1500 --aux-letter 1
56 3000 2e-4 9,10,11,12,13,14,30,$W,47,53 0.3 1000
61 2500 1e-4 9,10,11,12,13,14,30,$W,47,53 0.3 1000}"
# then SOUP (optional, empty by default): fine-tunes of the last PHASES step, each in its own run
# (RUN-soup1, RUN-soup2, ..., two at a time, one per core), same line format; the model is then
# the mean of that step's weights and theirs (train/average.py), in RUN/ckpt.pt; RUN/last.pt
# keeps the last PHASES step. Session 17 shipped such a soup before the stage-61 phase.
SOUP="${SOUP-}"

# check every PHASES and SOUP line before any training starts
while read -r stage steps lr replay mix anneal extra; do
  [ -n "$stage" ] || continue
  if ! [[ "$stage $steps $anneal" =~ ^[0-9]+\ [0-9]+\ [0-9]+$ ]] || [ -z "$mix" ] || [ "$anneal" -gt "$steps" ] ||
    { [ -n "$extra" ] && [[ "$extra" != --* ]]; }; then
    echo "make_joint.sh: bad PHASES or SOUP line '$stage $steps $lr $replay $mix $anneal $extra'" \
      "(want: stage steps lr replay mix-prev annealed-steps [--flags], annealed <= steps)" >&2
    exit 2
  fi
done <<< "$PHASES
$SOUP"

[ -f "$RUN/ckpt.pt" ] || $PY train/stitch.py --a "$SCENES" --b "$WORDS" --out "$RUN/ckpt.pt"
step() { $PY -c "import torch; print(torch.load('$RUN/ckpt.pt', weights_only=False)['step'])"; }
[ -f "$RUN/start_step" ] || step > "$RUN/start_step"
s0=$(cat "$RUN/start_step")
$PY train/train.py --run "$RUN" --minutes "$MINUTES" --steps $((s0 + STEPS)) --set-stage "$STAGE" --max-stage "$STAGE" --path '' \
  --lr 1e-3 --lr2 0 --warmup 200 --replay "$REPLAY" --mix-prev 0.4 --promote 2 \
  --anneal $((s0 + STEPS - ANNEAL)) $((s0 + STEPS)) --eval-every 200 --eval-tables 60 "$PRECISION" --threads "$THREADS"
# Why these phases (train/README.md, sessions 10-12):
#  33: word tables half relational, which no earlier chat stage has (relational row 0.54 -> 0.60);
#  14: as 13, with still clauses that name any option (by letter half the time): without it
#      "still right of the middle -> do nothing" tips to "push right";
#  34: relational word tables (60 % of the word tables) beside stage 14's still clauses, one
#      stage instead of alternating 33 and 14 (relational 0.60 -> 0.70 -> 0.78);
#  37: stage 34 with "still D of the N" clauses in the word relational tables: after 34 the
#      plain "is still -> wait" clauses had tipped "still left of the middle" to "do nothing".
#  39: stage 37 with letters out of order in most tables, at lr 3e-4 (rephrasings 0.64 -> 0.70,
#      relational 0.77 -> 0.79; the same phase at 5e-4 lost two mountaincar items).
#  40: stage 39 with a third of the scene situations reworded, at lr 2e-4 for 4,000 steps
#      (rephrasings 0.70 -> 0.75; at 3e-4 for 2,000 it lost "still right of the middle").
#      Its last step was the model shipped in sessions 12-15 (jz40s).
#  47: the binding drill with evidence marks and their probes (--aux-binding 1, sticky from here):
#      the first recipe that leaves chance on it (0.52 -> 0.97 from 64,250 to 65,000); constant lr.
#  48, 50: stage 40 with marks (word, then scene too), the drill replayed: the general tables come
#      back and keep the binding (relational 0.80 -> 0.87).
#  51: reword level 2 with neutral-aimed still clauses and both marks, twice, the second time with
#      the lookup drill (45) replayed (rephrasings 0.72 -> 0.81, relational 0.90 -> 0.91).
#  52: stage 51 with clause marks: a probe reads on layer 1 the letter of the option a clause names
#      by its text (--aux-clause 1), the marked drill (53) replayed; relabelled exams 47/47 (jc1).
#  56: stage 52 with most relational word tables in four options of two direction pairs, which
#      jc1 read at 0.69 (2- and 3-option ones 0.98-0.99); from 78,000 a probe reads the answer
#      letter at the subject's direction word (--aux-letter 1, sticky): 4-option 0.69 -> 0.98,
#      relational 0.91 -> 0.99, rephrasings 0.83 -> 0.89, relabelled exams 47 -> 44 of 47.
#      Its last step shipped in session 16 (jd6); train/README.md sessions 14-16 have the runs.
#  61: stage 56 with more scene place phrases, the hazard's phrase first in half the toward / away
#      situations and their directions in other words ("the goal is 9 steps below") half the time,
#      at lr 1e-4: rephrasings 0.894 -> 0.936 (session 17, je10). This last step ships.
# A phase runs once the previous ones have reached their last step (resumable).
# one PHASES / SOUP line on run $1 up to step $2, evaluating every $3 steps, on $4 threads
phase() {
  local run=$1 end=$2 every=$3 threads=$4
  # shellcheck disable=SC2086  # $extra holds train.py flags
  $PY train/train.py --run "$run" --total-minutes 1e9 --steps "$end" --set-stage "$stage" --max-stage "$stage" \
    --lr "$lr" --warmup 100 --replay "$replay" --mix-prev "$mix" --promote 2 \
    --anneal $((end - anneal)) "$end" --eval-every "$every" --eval-tables 60 "$PRECISION" --threads "$threads" $extra < /dev/null
}
start=$((s0 + STEPS))
while read -r stage steps lr replay mix anneal extra; do
  [ -n "$stage" ] || continue
  end=$((start + steps))
  now=$(step)  # loads the checkpoint: once per phase
  if [ "$now" -ge "$start" ] && [ "$now" -lt "$end" ]; then
    phase "$RUN" "$end" 200 "$THREADS"
  fi
  start=$end
done <<< "$PHASES"

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
    phase "$B" $((start + steps)) 250 1 > "$B.out" 2>&1 &
    pids+=($!)
    if [ ${#pids[@]} -eq 2 ]; then  # two at a time: one per core
      for p in "${pids[@]}"; do wait "$p"; done
      pids=()
    fi
  done <<< "$SOUP"
  for p in "${pids[@]}"; do wait "$p"; done
  cp "$RUN/ckpt.pt" "$RUN/last.pt"
  $PY train/average.py --out "$RUN/ckpt.pt" "$RUN/last.pt" $(for k in $(seq 1 "$i"); do echo "$RUN-soup$k/ckpt.pt"; done)
fi
