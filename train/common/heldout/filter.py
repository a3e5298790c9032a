"""Held-out sentences: the built-in tasks' rule and exam sentences never appear in training.

Every *.txt file in this directory holds one held-out sentence per line ('#' starts a
comment); a line with tabs is a table row whose LAST tab-separated field is the sentence
(rephrased.txt: `task<TAB>expected letter<TAB>sentence`, read by train/nano/eval_table.py).
Text is normalised to lower-case alphanumeric words; a text is contaminated if it
contains any 6-word window of a held-out sentence, or (for sentences shorter than 6 words)
the whole sentence as a contiguous word sequence. The corpus generator refuses such texts
and check_contamination.py proves it on a large sample.
"""

from __future__ import annotations

import functools
import os
import re

N = 6
HELDOUT_DIR = os.path.dirname(os.path.abspath(__file__))
# Comma-separated file names: when set, default() reads only these (a recipe pins the held-out
# set its model was trained with; tasks added later are held out of new corpora, not of it).
FILES_ENV = "MEADOW_HELDOUT_FILES"
_WORD = re.compile(r"[a-z0-9]+")


def words(text: str) -> tuple[str, ...]:
    return tuple(_WORD.findall(text.lower()))


def load_sentences(directory: str = HELDOUT_DIR, only: list[str] | None = None) -> list[tuple[str, str]]:
    """(file name, sentence) for every held-out line in directory/*.txt (or the `only` files)."""
    out = []
    names = sorted(os.listdir(directory)) if only is None else list(only)
    for name in names:
        if not name.endswith(".txt"):
            continue
        if only is not None and not os.path.isfile(os.path.join(directory, name)):
            raise FileNotFoundError(f"{FILES_ENV} names {name}, which is not in {directory}")
        with open(os.path.join(directory, name), encoding="utf-8") as f:
            for line in f:
                line = line.split("#", 1)[0].strip()
                if "\t" in line:  # task<TAB>letter<TAB>sentence: only the sentence is held out
                    line = line.rsplit("\t", 1)[1].strip()
                if line:
                    out.append((name, line))
    return out


class HeldOut:
    def __init__(self, sentences: list[str]):
        self.sentences = list(sentences)
        self.ngrams: dict[tuple[str, ...], str] = {}
        self.short: dict[tuple[str, ...], str] = {}
        for s in self.sentences:
            w = words(s)
            if len(w) < N:
                if w:
                    self.short[w] = s
            else:
                for i in range(len(w) - N + 1):
                    self.ngrams[w[i : i + N]] = s

    def find(self, text: str) -> str | None:
        """The held-out sentence that text overlaps, or None if text is clean."""
        w = words(text)
        for i in range(len(w) - N + 1):
            hit = self.ngrams.get(w[i : i + N])
            if hit:
                return hit
        for sw, s in self.short.items():
            k = len(sw)
            for i in range(len(w) - k + 1):
                if w[i : i + k] == sw:
                    return s
        return None

    def clean(self, text: str) -> bool:
        return self.find(text) is None


@functools.lru_cache(maxsize=None)
def default() -> HeldOut:
    """Every held-out file, or those $MEADOW_HELDOUT_FILES names."""
    pinned = os.environ.get(FILES_ENV)
    only = [n.strip() for n in pinned.split(",") if n.strip()] if pinned else None
    return HeldOut([s for _, s in load_sentences(only=only)])
