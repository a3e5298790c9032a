"""Where a checkpoint misses the match tables of a stream, by what the situation's words are.

    OPENBLAS_CORETYPE=SkylakeX python3 -m train.nano.diag.match --ckpt C [--split unseen] [--tables 600]

Decides the match tables of `--stage` (default mixed-clauses) through the checkpoint (eval_table's
TorchDecider: the runtime's prompt and ids) and prints accuracy per group of decisions:
  - tokens: whether the answer's condition words are one BPE token each or several, and
    whether the situation spells them in the same ids as the rule ("Part" at a clause's start
    and " part" in a situation are different ids);
  - second: whether the situation also holds every word of another option's condition (only
    in a stream drawn with partial_whole, as training's are; eval_table's never has one);
  - options: the table's number of options.
The stream is a fresh one (`--seed`, default 555), not the eval's, so it can be read freely.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections import Counter

from .. import eval_table as E
from ..corpus.curriculum import name_of

_WORD = re.compile(r"[A-Za-z']+")


def match_tables(seed: int, stage: str, n: int, split: str, whole: bool) -> list[E.Case]:
    """The match tables among n tables of the stream (seed, stage)."""
    return [c for c in E.synthetic_cases(seed, stage, n, split, one_condition=not whole) if c.kind == "match"]


def _holds(seq: list[int], part: list[int]) -> bool:
    return any(seq[i : i + len(part)] == part for i in range(len(seq) - len(part) + 1))


def groups(dec: E.TorchDecider, case: E.Case, situation: str, answer: str) -> dict[str, str]:
    conds = case.conds
    words = {w.lower() for w in _WORD.findall(situation)}
    second = any(
        len(c) > 1 and all(w.lower() in words for w in c)
        for L, cs in conds.items()
        if L != answer
        for c in cs
    )
    mine = [w.lower() for c in conds[answer] for w in c]
    if not mine:
        return {"tokens": "default option", "second": str(second), "options": str(len(case.options))}
    rule_ids = dec._encode(E.runtime_prompt(case.rule, case.options))
    same = True
    for m in _WORD.finditer(situation):
        if m.group(0).lower() in mine:
            lead = m.start() > 0 and situation[m.start() - 1] == " "
            same &= _holds(rule_ids, dec._encode((" " if lead else "") + m.group(0)))
    one = max(len(dec._encode(" " + w)) for w in mine) == 1
    return {
        "tokens": f"{'one token' if one else 'several tokens'}, {'same' if same else 'other'} ids",
        "second": str(second),
        "options": str(len(case.options)),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ckpt", required=True)
    ap.add_argument("--stage", default="mixed-clauses")
    ap.add_argument("--split", choices=("train", "unseen"), default="train")
    ap.add_argument("--tables", type=int, default=600, help="tables drawn (about a quarter are match tables)")
    ap.add_argument("--seed", type=int, default=555)
    ap.add_argument(
        "--one-condition", action="store_true", help="draw as eval_table does (partial_whole off)"
    )
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args(argv)
    try:
        a.stage = name_of(a.stage)
    except KeyError as e:
        ap.error(e.args[0])
    if a.tables < 1:
        ap.error("--tables must be at least 1")
    if not os.path.isfile(a.ckpt):
        ap.error(f"--ckpt {a.ckpt}: no such file")
    dec = E.TorchDecider(a.ckpt, a.threads)
    tables = match_tables(a.seed, a.stage, a.tables, a.split, whole=not a.one_condition)
    if not tables:
        print(f"stage {a.stage} drew no match tables in {a.tables} tables", file=sys.stderr)
        return 1
    probs = dec.probs([(c.rule, c.options, c.situations) for c in tables])
    tot: dict[str, Counter] = {}
    hit: dict[str, Counter] = {}
    for case, ps in zip(tables, probs):
        for s, ans, p in zip(case.situations, case.answers, ps):
            ok = max(p, key=p.get) == ans
            for g, k in groups(dec, case, s, ans).items():
                tot.setdefault(g, Counter())[k] += 1
                hit.setdefault(g, Counter())[k] += ok
    n = sum(tot["options"].values())
    print(
        f"{a.ckpt}: stage {a.stage}, {a.split} words, {n} match decisions, "
        f"accuracy {sum(hit['options'].values()) / n:.3f}"
    )
    for g in ("tokens", "second", "options"):
        for k in sorted(tot[g]):
            print(f"  {g:8s} {k:28s} {hit[g][k]:5d} / {tot[g][k]:5d} = {hit[g][k] / tot[g][k]:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
