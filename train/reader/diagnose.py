"""Where meadow-reader's misses come from, on composed items of held-out bank domains: the
decision with the model's reading and judge, with the composer's reading (gold) and the
model's judge, and with the model's reading and the composer's truths (gold judge, where a
literal read matches one the composer wrote).

    .venv-train/bin/python -m train.reader.diagnose RUN_DIR [--rules N]
"""

from __future__ import annotations

import argparse
import random

from train.reader import decide as D
from train.common import compose
from train.common.heldout import composed as heldout


def gold_reading(item) -> D.Reading:
    r = item.reading
    out = []
    for letter, text in item.options:
        clauses = [D.Clause(list(c["resolved"]), c["join"]) for c in r["clauses"] if c["letter"] == letter]
        out.append(D.OptionReading(letter, text, clauses, 1.0 if letter == r["default"] else 0.0))
    return D.Reading(out)


def gold_truth(item) -> dict[str, float]:
    return {t.lower(): float(v) for c in item.reading["clauses"] for t, v in zip(c["resolved"], c["truth"])}


def decide_with(reading: D.Reading, probs: list[float]) -> str:
    p = D.combine(reading, probs)
    return max(p, key=p.get)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("run")
    ap.add_argument("--rules", type=int, default=150)
    args = ap.parse_args()
    from train.reader.model import load_checkpoint
    from train.reader.train import is_dev

    model, tok = load_checkpoint(args.run)
    domains = [d for d in compose.load_bank() if is_dev(d["domain"])]
    rng = random.Random(1234)
    hits = {"model": 0, "gold reading": 0, "gold judge": 0}
    total = matched = lits = 0
    for _ in range(args.rules):
        items = [
            it for it in compose.items_for_rule(rng, rng.choice(domains), 3, dense=True) if heldout.clean(it)
        ]
        if not items:
            continue
        read = D.read(model, tok, items[0].rule, items[0].options)
        gold = gold_reading(items[0])
        for it in items:
            total += 1
            p_model = D.judge(model, tok, read.literals(), [it.state] * len(read.literals()))
            hits["model"] += decide_with(read, p_model) == it.answer
            p_gold_read = D.judge(model, tok, gold.literals(), [it.state] * len(gold.literals()))
            hits["gold reading"] += decide_with(gold, p_gold_read) == it.answer
            truth = gold_truth(it)
            p_truth = [truth.get(t.lower(), p) for t, p in zip(read.literals(), p_model)]
            matched += sum(t.lower() in truth for t in read.literals())
            lits += len(read.literals())
            hits["gold judge"] += decide_with(read, p_truth) == it.answer
    for k, v in hits.items():
        print(f"{k:>13}: {v / max(1, total):.3f} of {total}")
    print(f"literals read that the composer wrote: {matched} of {lits}")


if __name__ == "__main__":
    main()
