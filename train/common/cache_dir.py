"""The training cache, where the training state git does not hold lives (the checkpoints to
resume from; train/nano/checkpoints.md): $XDG_CACHE_HOME/meadow-mind/train, else
~/.meadow-mind/train, the model cache's rule (README.md) with train for models.
train/common/cache_env.sh says the same for the shell scripts (tests/train/test_cache_dir.py).
"""

from __future__ import annotations

import os


def train_cache() -> str:
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg:
        return os.path.join(xdg, "meadow-mind", "train")
    home = os.environ.get("HOME")
    if not home:
        raise OSError("neither XDG_CACHE_HOME nor HOME is set")
    return os.path.join(home, ".meadow-mind", "train")


def checkpoints_dir() -> str:
    """The shipped model's lineage, one folder per run (train/nano/restore_checkpoints.sh fills it)."""
    return os.path.join(train_cache(), "checkpoints")
