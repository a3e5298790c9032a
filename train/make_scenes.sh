#!/usr/bin/env bash
# The scene branch of the recipe (issue 4; train/make_model.sh runs it beside the word branch):
# contamination check, then training through the scene curriculum (resumable: rerun the same
# command to continue). Exported alone it was the shipped model up to session 9.
#   RUN=train/runs/scenes train/make_scenes.sh   (then export_gguf.py / measure_model.sh RUN to use it alone)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=/usr/bin/python3
. train/blas_env.sh  # OpenBLAS kernels pinned for reproducible runs
RUN="${RUN:-train/runs/scenes}"
MINUTES="${MINUTES:-150}"
STEPS="${STEPS:-27000}"    # end of the scene curriculum (stages 9-12): train/runs/nano, 82.3 min, 1 thread
STEPS2="${STEPS2:-45000}"    # end of stage 13 (mixed clause tables), annealed from 33,000 to 45,000
ANNEAL="${ANNEAL:-33000}"    # the step where stage 13's lr starts falling to 5 %
STEPS3="${STEPS3:-49000}"    # end of stage 30 (rare place nouns), lr 3e-4 annealed from STEPS2 + 1,000
LAYERS="${LAYERS:-2}"        # session 9: 3 layers at width 64 learn these stages slower (18 exam misses at 45,000)
TOKENIZER="${TOKENIZER:-train/tokenizer/vocab.json}"  # vocab-folded.json: case folded (tokenizer/bpe.py)

$PY -m train.heldout.check_contamination --examples 2000
# Curriculum: stage 9 (plain "same way / toward" scenes) -> 10 (all relational modes,
# distractors) -> 11 (+ clause tables) -> 12 (+ word tables); promotion at 0.9 eval accuracy.
$PY -m train.train --run "$RUN" --total-minutes "$MINUTES" --steps "$STEPS" --seed 0 --stage 9 --max-stage 12 --tokenizer "$TOKENIZER" \
  --dim 64 --layers "$LAYERS" --heads 4 --kv-heads 2 --ffn 192 --batch 16 --lr 3e-3 --lr2 1e-3 --lr2-acc 0.8 \
  --promote 0.9 --mix-prev 0.2 --replay-from 9 --eval-every 200 --eval-tables 60
# Stage 13 (mixed clause tables with defaults in any slot, still clauses), replaying 9-12 in
# 30 % of each batch: constant lr 1e-3 to step 33,000, then linear decay to 5 % at 45,000.
# Resuming at a step past STEPS is fine: the first command then only re-saves the checkpoint.
$PY -m train.train --run "$RUN" --total-minutes 1e9 --steps "$STEPS2" --set-stage 13 --max-stage 13 --tokenizer "$TOKENIZER" \
  --lr 1e-3 --lr2 0 --mix-prev 0.3 --replay-from 9 --anneal "$ANNEAL" "$STEPS2"
# Stage 30 (stage 13 with rare nouns in place phrases: "high up a hill" had tipped an exam item),
# replaying 9-14 in 40 % (14's still clauses name any option: they kept "still right of the
# middle -> do nothing" right). Session 9: exams 0 misses, every play target held.
$PY -m train.train --run "$RUN" --total-minutes 1e9 --steps "$STEPS3" --set-stage 30 --max-stage 30 --tokenizer "$TOKENIZER" \
  --lr 3e-4 --mix-prev 0.4 --replay 9,10,11,12,13,14 --anneal "$((STEPS2 + 1000))" "$STEPS3"
