#!/usr/bin/env bash
# The word-table branch of the recipe (issue 4): a model that reads open-vocabulary rule
# tables, trained from scratch in three phases (resumable: rerun the same command to continue).
#   RUN=train/runs/words train/make_words.sh        -> $RUN-narrow/ckpt.pt, $RUN/ckpt.pt
# 1. 64 x 2 on the compact layout's plateau-crossing stages 0 -> 1, then their chat-layout
#    twin 16 (a circuit formed in the compact layout transfers; from scratch in the chat
#    layout it does not form: train/README.md, session 5);
# 2. widen x 2 (grow.py): the narrow model's 3-option plateau (0.80) breaks only when wider;
# 3. 128 x 2 up the chat ladder 16 -> 25: 3, then 2-4 options, the gap between a condition and
#    its letter one template group at a time, lead words, content-word option texts, two-word
#    and rare-word conditions (26), partial-match distractors (27), and finally the word tables
#    of stages 12-13 with option-text clauses (25) (session 6-7 measurements in train/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=/usr/bin/python3
. train/blas_env.sh  # OpenBLAS kernels pinned for reproducible runs
RUN="${RUN:-train/runs/words}"
MINUTES="${MINUTES:-150}"  # wall time of this invocation, all phases together
LAYERS="${LAYERS:-2}"  # 3: the situation-to-table lookup gets its own layer (session 8)
STEPS="${STEPS:-1000000000}"  # stop phase 3 at this step (the recipe's joint starts from a fixed one)
# phase 3's precision and threads (phases 1-2 stay float32 on one thread: from scratch under
# bf16 the narrow model stays at chance, train/README.md session 18)
PRECISION="${PRECISION:---no-bf16}"
THREADS="${THREADS:-1}"
TOKENIZER="${TOKENIZER:-train/tokenizer/vocab.json}"  # vocab-folded.json: case folded (tokenizer/bpe.py)
ANNEAL="${ANNEAL:-0}"  # N > 0: phase 4, N more steps of stage 25 with the lr falling to 5 % (wN, session 25)
THREADS_LATER="${THREADS_LATER:-}"  # "FILE N": N threads once FILE exists (train.py --threads-later)
end=$(($(date +%s) + ${MINUTES%.*} * 60))
left() { echo $(((end - $(date +%s)) / 60)); }

$PY -m train.train --run "$RUN-narrow" --minutes "$(left)" --seed 0 --path 0,1,16 --stop-at-end --tokenizer "$TOKENIZER" \
  --dim 64 --layers "$LAYERS" --heads 4 --kv-heads 2 --ffn 192 --batch 16 --lr 3e-3 --lr2 1e-3 --lr2-acc 0.75 \
  --promote 0.88 --mix-prev 0.2 --eval-every 200 --eval-tables 60
at_end() { $PY -c "import sys, torch; sys.exit(0 if torch.load('$1', weights_only=False).get('at_end') else 1)"; }
if ! at_end "$RUN-narrow/ckpt.pt"; then
  echo "phase 1 not finished (stage 16 below 0.88); rerun to continue"; exit 0
fi
[ -f "$RUN/ckpt.pt" ] || $PY -m train.grow --ckpt "$RUN-narrow/ckpt.pt" --out "$RUN/ckpt.pt" --widen 2
[ "$(left)" -gt 0 ] || exit 0
if [ ! -f "$RUN/anneal_from" ]; then  # phase 4 not begun
  # shellcheck disable=SC2086  # THREADS_LATER is two words
  $PY -m train.train --run "$RUN" --minutes "$(left)" --steps "$STEPS" --path 16,17,18,19,20,21,22,23,24,26,27,25 --stop-at-end --tokenizer "$TOKENIZER" \
    --lr 1e-3 --lr2 0 --warmup 200 --promote 0.9 --mix-prev 0.2 "$PRECISION" --threads "$THREADS" \
    ${THREADS_LATER:+--threads-later $THREADS_LATER}
fi
# 4. (ANNEAL > 0) the lr of stage 25 falls linearly to 5 % over ANNEAL more steps, the path's
#    stages replayed: +2-3 points on the branch's own match tables (train/README.md, session 25)
[ "$ANNEAL" -gt 0 ] || exit 0
if [ ! -f "$RUN/anneal_from" ]; then
  done3=$($PY -c "import torch; st = torch.load('$RUN/ckpt.pt', weights_only=False)
print(st['step'] if st.get('at_end') or st['step'] >= $STEPS else '')")
  [ -n "$done3" ] || { echo "phase 3 not finished; rerun to continue"; exit 0; }
  echo "$done3" > "$RUN/anneal_from"
fi
[ "$(left)" -gt 0 ] || exit 0
s0=$(cat "$RUN/anneal_from")
$PY -m train.train --run "$RUN" --minutes "$(left)" --steps $((s0 + ANNEAL)) --set-stage 25 --max-stage 25 --path '' \
  --replay 22,23,24,26,27 --mix-prev 0.2 --promote 2 --lr 1e-3 --lr2 0 --anneal "$s0" $((s0 + ANNEAL)) \
  "$PRECISION" --threads "$THREADS"
