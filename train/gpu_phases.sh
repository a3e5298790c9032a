#!/usr/bin/env bash
# The recipe's own phases for a few minutes each under `train.py --device` (session 34): how fast
# the trainer runs on a lent GPU, and whether its eval curve follows the CPU runs' (their logs,
# in the training cache (train/checkpoints.md): checkpoints/nano/log.jsonl for the scene phase;
# kb's CYCLE74 from ka for the polish).
#   train/gpu_phases.sh OUT_DIR
# Env: DEVICE (cuda), MINUTES per phase (2.5), WORKERS (0: inline corpus; N: train.py --workers N),
# TOGETHER (1: the three phases at once; 0: one after another, each alone on the device),
# MEADOW_DICT / MEADOW_WORDNET (copies of /usr/share/dict/american-english and /usr/share/wordnet
# where the machine has none), KA (a copy of the training cache's checkpoints/events/ckpt.pt),
# PY (python3).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: train/gpu_phases.sh OUT_DIR}
mkdir -p "$out"
PY=${PY:-python3}
DEVICE=${DEVICE:-cuda}
MINUTES=${MINUTES:-2.5}
WORKERS=${WORKERS:-0}
TOGETHER=${TOGETHER:-0}
. train/cache_env.sh  # CHECKPOINTS (train/checkpoints.md)
KA=${KA:-$CHECKPOINTS/events/ckpt.pt}
export PYTHONUNBUFFERED=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run=(--device "$DEVICE" --minutes "$MINUTES" --workers "$WORKERS")
limit=$(awk -v m="$MINUTES" 'BEGIN { print int(m * 60 + 60) }')  # the phase's minutes and its last eval

scenes() {  # make_scenes.sh's first line
  timeout "$limit" "$PY" -m train.train --run "$tmp/scenes" "${run[@]}" --seed 0 --stage 9 --max-stage 12 \
    --dim 64 --layers 2 --heads 4 --kv-heads 2 --ffn 192 --batch 16 --lr 3e-3 --lr2 1e-3 --lr2-acc 0.8 \
    --promote 0.9 --mix-prev 0.2 --replay-from 9 --eval-every 200 --eval-tables 60 > "$out/scenes.log" 2>&1
}
words() {  # make_words.sh's first line, at the recipe's three layers
  timeout "$limit" "$PY" -m train.train --run "$tmp/words" "${run[@]}" --seed 0 --path 0,1,16 --stop-at-end \
    --dim 64 --layers 3 --heads 4 --kv-heads 2 --ffn 192 --batch 16 --lr 3e-3 --lr2 1e-3 --lr2-acc 0.75 \
    --promote 0.88 --mix-prev 0.2 --eval-every 200 --eval-tables 60 > "$out/words.log" 2>&1
}
polish() {  # phases.sh's run_phase line for CYCLE74's first phase, from ka (what kb ran)
  mkdir -p "$tmp/polish" && cp "$KA" "$tmp/polish/ckpt.pt"
  local replay=9,10,11,12,13,14,14,30,22,23,24,47,53,62,51,37,61,61,61,65,66,74,74,74,74,74,74
  timeout "$limit" "$PY" -m train.train --run "$tmp/polish" "${run[@]}" --total-minutes 1e9 --steps 130000 \
    --set-stage 25 --max-stage 25 --lr 2e-4 --warmup 100 --replay "$replay" --mix-prev 0.5 --promote 2 \
    --anneal 129000 130000 --eval-every 200 --eval-tables 60 --bf16 --threads 2 > "$out/polish.log" 2>&1
}

if [ "$TOGETHER" = 1 ]; then
  scenes & words & polish & wait
else
  scenes; words; polish
fi
for f in scenes words polish; do  # step, stage, loss, eval, steps/s
  echo "$f: $(grep -h '"step"' "$out/$f.log" | "$PY" -c '
import json, sys
print("; ".join("{step} {stage} {loss:.4f} {eval_acc:.4f} {steps_per_s:.1f}/s".format(**json.loads(l)) for l in sys.stdin))')"
done
