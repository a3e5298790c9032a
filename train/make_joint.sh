#!/usr/bin/env bash
# Joins the scene branch and the word-table branch of the recipe into one model (issue 4):
# stitch.py puts the two side by side (block-diagonal, logits summed), then a short fine-tune
# on stage 13 (scenes with word tables) replaying both branches' stages teaches the halves
# to share the residual norms and which half to trust; the lr anneals to 5 % at the end; then
# shorter phases on stages 33 and 14 (STEPS2 each) at a lower lr.
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
STAGE="${STAGE:-13}"        # the stage the pair is fine-tuned on
REPLAY="${REPLAY:-9,10,11,12,22,23,24,25}"  # both branches' stages, 40 % of each batch
STEPS2="${STEPS2:-2000}"    # then stage 33 and stage 14 for STEPS2 each at lr 3e-4 (0: skip both)

[ -f "$RUN/ckpt.pt" ] || $PY train/stitch.py --a "$SCENES" --b "$WORDS" --out "$RUN/ckpt.pt"
step() { $PY -c "import torch; print(torch.load('$RUN/ckpt.pt', weights_only=False)['step'])"; }
[ -f "$RUN/start_step" ] || step > "$RUN/start_step"
s0=$(cat "$RUN/start_step")
$PY train/train.py --run "$RUN" --minutes "$MINUTES" --steps $((s0 + STEPS)) --set-stage "$STAGE" --max-stage "$STAGE" --path '' \
  --lr 1e-3 --lr2 0 --warmup 200 --replay "$REPLAY" --mix-prev 0.4 --promote 2 \
  --anneal $((s0 + STEPS - ANNEAL)) $((s0 + STEPS)) --eval-every 200 --eval-tables 60
# Then two phases at lr 3e-4 (session 10), each annealed over its last steps, once the first
# phase has reached its last step: stage 33 (word tables half relational, which no earlier chat
# stage has: the relational row 0.54 -> 0.60) replaying 9-14 and the word stages, and stage 14
# (as 13, with still clauses that name any option, by letter half the time) replaying 9-13, 30
# and the word stages: without it "still right of the middle -> do nothing" tips to "push right"
# (B 0.41, C 0.49 after the first phase; stage 30 in its place did not bring it back).
s1=$((s0 + STEPS))
if [ "$STEPS2" -gt 0 ] && [ "$(step)" -ge "$s1" ]; then
  $PY train/train.py --run "$RUN" --total-minutes 1e9 --steps $((s1 + STEPS2)) --set-stage 33 --max-stage 33 \
    --lr 3e-4 --warmup 100 --replay 9,10,11,12,13,14,22,23,24,25 --mix-prev 0.4 --promote 2 \
    --anneal $((s1 + STEPS2 / 2)) $((s1 + STEPS2)) --eval-every 200 --eval-tables 60
fi
s2=$((s1 + STEPS2))
if [ "$STEPS2" -gt 0 ] && [ "$(step)" -ge "$s2" ]; then
  $PY train/train.py --run "$RUN" --total-minutes 1e9 --steps $((s2 + STEPS2)) --set-stage 14 --max-stage 14 \
    --lr 3e-4 --warmup 100 --replay 9,10,11,12,13,30,22,23,24,25 --mix-prev 0.4 --promote 2 \
    --anneal $((s2 + STEPS2 / 4)) $((s2 + STEPS2)) --eval-every 200 --eval-tables 60
fi
