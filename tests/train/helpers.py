"""What the tests of train/ share: where the repository and the committed vocabulary lie, and the
arguments of the tiny model that a trainer test trains for a few steps.

Imported as `tests.train.helpers`, so it serves both `python -m unittest discover -s tests/train`
and `python -m unittest tests.train.test_x`, run from the repository's root.
"""

from __future__ import annotations

import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

VOCAB = os.path.join(ROOT, "train", "nano", "tokenizer", "vocab.json")

# train.py's tiny model: quick enough to train a few steps in a test
TINY_MODEL = ["--dim", "16", "--heads", "2", "--kv-heads", "1", "--ffn", "32", "--batch", "2"]

# an eval every 2 steps on 2 tables: a test's run evaluates, and promotes, quickly
QUICK_EVAL = ["--eval-every", "2", "--eval-tables", "2"]


def tiny_run(run: str, *extra: str, stage: int | str | None = None, steps: int | None = None) -> list[str]:
    """train.py's arguments for a tiny run in `run`: TINY_MODEL, `--stage S --max-stage S` when
    `stage` is given, then `extra`, QUICK_EVAL and `--steps N` last (a test resumes a run for more
    steps with `args[-1] = "6"`)."""
    args = ["--run", run, *TINY_MODEL]
    if stage is not None:
        args += ["--stage", str(stage), "--max-stage", str(stage)]
    args += [*extra, *QUICK_EVAL]
    if steps is not None:
        args += ["--steps", str(steps)]
    return args
