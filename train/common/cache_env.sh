# shellcheck shell=bash
# Sourced by the recipe scripts: the training cache, where the training state git does not hold
# lives (the checkpoints to resume from; train/nano/checkpoints.md). $XDG_CACHE_HOME/meadow-mind/train,
# else ~/.meadow-mind/train: the model cache's rule (README.md) with train for models.
# train/common/cache_dir.py says the same for the Python scripts (tests/train/test_cache_dir.py).
if [ -n "${XDG_CACHE_HOME:-}" ]; then
  TRAIN_CACHE=$XDG_CACHE_HOME/meadow-mind/train
else
  TRAIN_CACHE=${HOME:?neither XDG_CACHE_HOME nor HOME is set}/.meadow-mind/train
fi
# the shipped model's lineage, one folder per run (train/nano/restore_checkpoints.sh fills it)
CHECKPOINTS=$TRAIN_CACHE/checkpoints
