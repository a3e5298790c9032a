"""The held-out texts a meadow-small training item must not overlap.

Two sources, read at start-up: the built-in tasks' rule, option and exam sentences
(train/common/heldout/*.txt, the embedded model's guarantee) and every exam set under
tests/data/exams/ (rules and states by 6-word windows, option texts of 3+ words whole).
Short option texts ("wait", "go left") of an exam set are everyday phrases, not content, so
only the built-in tasks' short sentences are matched whole (as train/common/heldout/filter.py does).
"""

from __future__ import annotations

import functools
import glob
import json
import os

from train.common.heldout import filter as builtin

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
EXAMS = os.path.join(ROOT, "tests", "data", "exams")


def exam_texts(pattern: str = os.path.join(EXAMS, "*.jsonl")) -> list[str]:
    out = []
    for path in sorted(glob.glob(pattern)):
        with open(path, encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                item = json.loads(line)
                out += [item["rule"], item["state"]]
                out += [t for _, t in item["options"] if len(builtin.words(t)) >= 3]
    return out


@functools.lru_cache(maxsize=None)
def default() -> builtin.HeldOut:
    sentences = [s for _, s in builtin.load_sentences()] + exam_texts()
    return builtin.HeldOut(sentences)


def clean(item) -> bool:
    """True when no text of the item (rule, options, state) overlaps a held-out text."""
    h = default()
    texts = [item.rule, item.state] + [t for _, t in item.options]
    return all(h.find(t) is None for t in texts)
