"""The procedural corpus: deterministic examples (one rule table, several situations) from a seed.

    python3 -m train.nano.corpus.generate --stage few-templates --examples 5     # show examples
    python3 -m train.nano.corpus.generate --stage few-templates --examples 20000 --text out.txt  # raw text

Example i of (seed, stage) is always the same: each example draws from its own
random.Random(f"{seed}:{stage.seed}:{i}"), so a trainer can resume mid-stream and two runs agree.
Texts overlapping a held-out sentence (train/common/heldout) are rejected and redrawn.
"""

from __future__ import annotations

import argparse
import random
import sys
from dataclasses import dataclass

from train.common.heldout import filter as heldout
from . import layout, marks
from .curriculum import Stage
from .curriculum import stage as get_stage
from .tables import sample_table


@dataclass
class Example:
    prefix: str
    suffixes: list[str]
    answers: list[str]  # one letter per suffix
    kind: str
    chat: bool
    option_letters: list[str]  # the table's letters (the runtime restricts logits to these)

    def text(self) -> str:
        """Flat text (prefix, then each suffix with its answer), e.g. for tokenizer training."""
        parts = [self.prefix]
        for s, a in zip(self.suffixes, self.answers):
            parts.append(s + a + (layout.IM_END if self.chat else "") + "\n")
        return marks.strip("".join(parts))


def make_example(rng: random.Random, st: Stage, filt: heldout.HeldOut | None = None) -> Example:
    table, sits, answers = draw_table(rng, st, filt)
    chat = rng.random() < st.chat
    prefix, suffixes = layout.render(rng, table, sits, chat)
    return Example(prefix, suffixes, answers, table.kind, chat, [o.letter for o in table.options])


def draw_table(rng: random.Random, st: Stage, filt: heldout.HeldOut | None = None):
    """-> (Table, situations, answer letters): an example before its layout is rendered
    (make_example's first draws; train/nano/eval_table.py renders them in the runtime's layout)."""
    filt = filt or heldout.default()
    for _ in range(100):
        table = sample_table(rng, st)
        if filt.clean(marks.strip(table.rule)) and all(filt.clean(o.text) for o in table.options):
            break
    else:
        raise RuntimeError("could not draw a table clean of held-out text")
    sits, answers, seen = [], [], set()
    want = rng.randint(*st.situations)
    tries = 0
    while len(sits) < want and tries < want * 20:
        tries += 1
        s, letter = table.situation(rng)
        plain = marks.strip(s)
        if filt.clean(plain) and plain not in seen:
            seen.add(plain)
            sits.append(s)
            answers.append(letter)
    return table, sits, answers


def example(seed: int, stage: str | int, index: int) -> Example:
    """Example number `index` of the stream (seed, stage): reproducible random access. `stage`: a
    stage's name (or its seed)."""
    st = get_stage(stage)
    return make_example(random.Random(f"{seed}:{st.seed}:{index}"), st)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--stage", default="few-templates", help="a curriculum stage's name (corpus/curriculum.py)"
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--examples", type=int, default=5)
    ap.add_argument("--text", help="write flat text of all examples here instead of showing them")
    a = ap.parse_args(argv)
    if a.text:
        with open(a.text, "w", encoding="utf-8") as f:
            for i in range(a.examples):
                f.write(example(a.seed, a.stage, i).text())
        return 0
    for i in range(a.examples):
        ex = example(a.seed, a.stage, i)
        print(f"=== example {i} ({ex.kind}, {'chat' if ex.chat else 'compact'})")
        print(ex.prefix + "-----")
        for s, ans in zip(ex.suffixes, ex.answers):
            print(f"{s!r} -> {ans}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
