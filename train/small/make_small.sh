#!/usr/bin/env bash
# meadow-small from the pinned base, one command: the training environment (train/setup.sh), the
# LoRA fine-tune (resumable: run it again after a stop and it continues from the last saved
# step), the adapter GGUF, then the reading table beside the base and meadow-nano.
#   train/small/make_small.sh [train.py flags, e.g. --steps 400 --threads 2]
# Wall time on the 2-core development VM: ~12 s a step with 1 thread (docs/lab-notebook.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
train/setup.sh
# shellcheck source=../common/cache_env.sh
source train/common/cache_env.sh
run="$TRAIN_CACHE/small/run"
py=".venv-train/bin/python"
PYTHONPATH=$PWD "$py" -m train.small.train --out "$run" --resume "$@"
PYTHONPATH=$PWD "$py" -m train.small.release "$run/ckpt.pt" --out models/meadow-small.lora.gguf
[ -x build/meadow-mind ] || scripts/setup.sh build
for set in tests/data/exams/natural.jsonl tests/data/exams/fresh.jsonl; do
  build/meadow-mind reading --set "$set" --model nano --model smollm2-135m --no-uncached
  build/meadow-mind reading --set "$set" --model smollm2-135m --lora models/meadow-small.lora.gguf --no-uncached
done
