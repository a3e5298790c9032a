#!/usr/bin/env bash
# Retrains the embedded model (models/meadow-nano.gguf) from scratch (issue 4): the scene branch
# (make_scenes.sh, 64 x 2) and the word-table branch (make_words.sh, 128 x 3) train at the same
# time, one per core; make_joint.sh then joins them and fine-tunes the pair; the last step has
# its unread tokens spread (spread_unread.py) and is polished (make_polish.sh, with its event
# cycles), then exported and measured (models/MODEL_CARD.md).
# Resumable: rerun the same command to continue.
#   train/make_model.sh            (RUN=train/runs/meadow-nano; branch runs beside it)
set -euo pipefail
cd "$(dirname "$0")/.."
RUN="${RUN:-train/runs/meadow-nano}"
WORDS_STEPS="${WORDS_STEPS:-39000}"  # where the shipped model's word branch stopped (stage 25)
OUT="${OUT:-models/meadow-nano.gguf}"
# train/tokenizer/vocab-folded.json: both branches read case-folded text (tokenizer/bpe.py); the
# joint inherits the word branch's tokenizer through stitch.py and train.py's resume
export TOKENIZER="${TOKENIZER:-train/tokenizer/vocab.json}"
mkdir -p "$RUN"

RUN="$RUN-scenes" MINUTES=1000000 train/make_scenes.sh > "$RUN/scenes.out" 2>&1 &
scenes=$!
RUN="$RUN-words" LAYERS=3 STEPS="$WORDS_STEPS" MINUTES=1000000 train/make_words.sh > "$RUN/words.out" 2>&1 &
words=$!
wait $scenes || { echo "scene branch failed: $RUN/scenes.out"; exit 1; }
wait $words || { echo "word branch failed: $RUN/words.out"; exit 1; }

SCENES="$RUN-scenes/ckpt.pt" WORDS="$RUN-words/ckpt.pt" RUN="$RUN" MINUTES=1000000 train/make_joint.sh
# the embeddings of tokens no training text holds take the read tokens' spread (spread_unread.py),
# then the polish re-learns the word tables with the read softmax, which keeps them spread
[ -f "$RUN-spread/ckpt.pt" ] || /usr/bin/python3 -m train.spread_unread --ckpt "$RUN/ckpt.pt" --out "$RUN-spread/ckpt.pt"
# then the event cycles after the polish's soup (make_polish.sh POST=events, session 32)
POST="${POST-events}" RUN="$RUN-spread" train/make_polish.sh
/usr/bin/python3 -m train.export_gguf --ckpt "$RUN-spread/ckpt.pt" --out "$OUT"
train/measure_model.sh "$RUN-spread" "$OUT"
