"""Contamination check: no held-out sentence, and no 6-gram of one, in a large corpus sample.

    python3 -m train.nano.check_contamination [--examples 20000] [--stages scene-same-way,scene-relational] [--seed 0]

Also proves the check can fail: it first plants the held-out sentences into a text and
requires the detector to flag every one. Exit 0 = clean, 1 = contaminated (or detector broken).
"""

from __future__ import annotations

import argparse
import sys

from .corpus.curriculum import STAGES, name_of
from .corpus.generate import example
from train.common.heldout import filter as heldout


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--examples", type=int, default=20000, help="examples per stage")
    ap.add_argument("--stages", default=",".join(STAGES), help="default: every stage")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)

    sentences = heldout.load_sentences()
    h = heldout.default()
    if not sentences:
        print("no held-out sentences found", file=sys.stderr)
        return 1
    # The detector must flag each held-out sentence when it is embedded in other text.
    for name, s in sentences:
        if h.find("some words before. " + s.upper() + " and after") is None:
            print(f"detector missed planted sentence from {name}: {s!r}", file=sys.stderr)
            return 1

    n_texts, n_words, bad = 0, 0, []
    for st in (name_of(x) for x in a.stages.split(",")):
        for i in range(a.examples):
            text = example(a.seed, st, i).text()
            n_texts += 1
            n_words += len(heldout.words(text))
            hit = h.find(text)
            if hit:
                bad.append((st, i, hit))
    print(f"held-out sentences: {len(sentences)} ({len(h.ngrams)} 6-grams, {len(h.short)} short)")
    print(f"sampled {n_texts} examples, {n_words} words: {len(bad)} contaminated")
    for st, i, hit in bad[:10]:
        print(f"  stage {st} example {i}: overlaps {hit!r}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
