"""The built-in tasks' exams decided by a PyTorch checkpoint (fast feedback while training).

    python3 -m train.nano.diag.exam_torch --ckpt train/runs/NAME/ckpt.pt [--tasks tasks.json] [--verbose]
    python3 -m train.nano.diag.exam_torch --ckpt C --all     # + relabelled exams, rephrasings, relational
    python3 -m train.nano.diag.exam_torch --ckpt C --skills  # + binding by phrase count, still-clause lookup

Builds each prompt exactly as the runtime does (eval_table.TorchDecider: chat layout, prefix
and suffix tokenized apart, a slot of 3 <|mask|>) and prints, per task, the misses with the
probabilities. `--all` adds the other exam-shaped rows of issue 4's table (relabelled exams,
hand rephrasings, a relational diagnostic on the mixed-clauses eval stream) with each miss, so a
candidate checkpoint can be judged in seconds before it is exported. The shipped numbers come
from the C++ runtime (eval_table.py); this is the quick look. `--tasks` is
`meadow-mind list --json` saved to a file.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys

from .. import eval_table as E

# the mountaincar items whose margin every fine-tune of the joined model has had to keep
WATCH = ("mountaincar", "still")


def _fmt(p: dict[str, float]) -> str:
    return "{" + ", ".join(f"{L} {v:.2f}" for L, v in p.items()) + "}"


def _best(p: dict[str, float]) -> str:
    return max(p, key=p.get)


def exams(dec: E.TorchDecider, tasks: list[dict], verbose: bool) -> int:
    """Prints each task's score (and, verbose, each miss and the watched items); -> misses."""
    total = 0
    for t in tasks:
        opts = [(o["letter"], o["text"]) for o in t["options"]]
        probs = dec.probs([(t["rule"], opts, [e["status"] for e in t["exam"]])])[0]
        miss = [(e, p) for e, p in zip(t["exam"], probs) if _best(p) != e["expected"]]
        total += len(miss)
        print(f"{t['name']:12s} {len(t['exam']) - len(miss):3d}/{len(t['exam'])}")
        if verbose:
            for e, p in miss:
                print(f"   want {e['expected']} got {_best(p)} {_fmt(p)}: {e['status']}")
            for e, p in zip(t["exam"], probs):
                if t["name"] == WATCH[0] and WATCH[1] in e["status"]:
                    print(f"   margin {e['expected']} {p[e['expected']]:.2f}: {e['status']}")
    return total


def relabelled(dec: E.TorchDecider, tasks: list[dict]) -> tuple[int, int]:
    """eval_table's relabelling row for the exams (same derangements), with each miss."""
    hits = n = 0
    for t in tasks:
        if t["name"] not in E.BUILTIN:
            continue
        opts = [(o["letter"], o["text"]) for o in t["options"]]
        statuses = [e["status"] for e in t["exam"]]
        base = dec.probs([(t["rule"], opts, statuses)])[0]
        for k, (s, p) in enumerate(zip(statuses, base)):
            perm = E.derangement(random.Random(f"relabel:{t['name']}:{k}"), [L for L, _ in opts])
            rule2, opts2 = E.relabel(t["rule"], opts, perm)
            p2 = dec.probs([(rule2, opts2, [s])])[0][0]
            ok = _best(p2) == perm[_best(p)]
            hits, n = hits + ok, n + 1
            if not ok:
                print(f"   relabelled {t['name']}: want {perm[_best(p)]} got {_best(p2)} {_fmt(p2)}: {s}")
    return hits, n


def rephrased(dec: E.TorchDecider, tasks: list[dict]) -> tuple[int, int]:
    by_name = {t["name"]: t for t in tasks}
    items = E.load_rephrased()
    hits = 0
    for task, letter, s in items:
        t = by_name[task]
        p = dec.probs([(t["rule"], [(o["letter"], o["text"]) for o in t["options"]], [s])])[0][0]
        got = _best(p)
        hits += got == letter
        if got != letter:
            print(f"   rephrased {task}: want {letter} got {got} {_fmt(p)}: {s}")
    return hits, len(items)


def relational(rows: dict[int, tuple[int, int]]) -> float:
    """The relational row from binding()'s rows (the same decisions, all phrase counts)."""
    return sum(h for h, _ in rows.values()) / sum(n for _, n in rows.values())


_PHRASE_SEP = re.compile(r", and |, | and |; | with ")


def binding(dec: E.TorchDecider, tables: int, stage: str = "mixed-clauses") -> dict[int, tuple[int, int]]:
    """Relational word tables by how many phrases the situation has -> (right, total). Reading
    a random phrase's direction scores ~0.70 with two phrases: near that, nothing is bound."""
    cases = E.synthetic_cases(dec.seed + E.EVAL_SEED_OFFSET, stage, tables, relational=True)
    out: dict[int, list[int]] = {}
    for c, ch in zip(cases, dec.choose(cases)):
        for s, want, got in zip(c.situations, c.answers, ch):
            row = out.setdefault(len(_PHRASE_SEP.split(s)), [0, 0])
            row[0] += want == got
            row[1] += 1
    return {k: (v[0], v[1]) for k, v in sorted(out.items())}


def lookup(dec: E.TorchDecider, tables: int, level: int = 6) -> dict[tuple[str, str], tuple[int, int]]:
    """Scene still clauses ("If the S is still D of the N, <option>") decided alone, by what
    the clause names: (neutral | same direction | other direction, by text | by letter)."""
    from ..corpus.scenes import NEUTRAL, relational_table

    batch, kinds = [], []
    for k in range(tables):
        t = relational_table(random.Random(f"lookup:{k}"), 0.8, level)
        text = {o.letter: o.text for o in t.options}
        sits, ks = [], []
        for j in range(12):
            s, letter = t.situation(random.Random(j))
            m = re.fullmatch(r"the .+ is still (\w+) of the (\w+)", s)
            if not m:
                continue
            clause = re.search(rf"[^.]*still {m.group(1)} of the {m.group(2)}[^.]*", t.rule).group(0).lower()
            named = text[letter]
            what = "neutral" if named in NEUTRAL else "same" if named.endswith(" " + m.group(1)) else "other"
            sits.append(s)
            ks.append((what, "text" if named in clause else "letter", letter))
        if sits:
            batch.append((t.rule, list(text.items()), sits))
            kinds.append(ks)
    out: dict[tuple[str, str], list[int]] = {}
    for probs, ks in zip(dec.probs(batch), kinds):
        for p, (what, how, letter) in zip(probs, ks):
            row = out.setdefault((what, how), [0, 0])
            row[0] += _best(p) == letter
            row[1] += 1
    return {k: (v[0], v[1]) for k, v in sorted(out.items())}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ckpt", required=True)
    ap.add_argument("--tasks", default="/tmp/tasks.json", help="`meadow-mind list --json` saved to a file")
    ap.add_argument("--verbose", action="store_true", help="print each miss and the watched items' margins")
    ap.add_argument("--all", action="store_true", help="also relabelled exams, rephrasings and relational")
    ap.add_argument("--relational-tables", type=int, default=300)
    ap.add_argument(
        "--skills",
        action="store_true",
        help="also the two skill diagnostics: binding (relational tables by phrase count) "
        "and lookup (scene still clauses by what they name)",
    )
    a = ap.parse_args(argv)
    try:
        with open(a.tasks, encoding="utf-8") as f:
            tasks = json.load(f)
    except (OSError, ValueError) as e:
        print(
            f"exam_torch: cannot read --tasks {a.tasks}: {e} (save `meadow-mind list --json` there)",
            file=sys.stderr,
        )
        return 2
    dec = E.TorchDecider(a.ckpt)
    total = exams(dec, tasks, a.verbose or a.all)
    print(f"misses: {total} (step {dec.step}, stage {dec.stage})")
    rows = binding(dec, a.relational_tables) if a.all or a.skills else {}
    if a.all:
        h, n = relabelled(dec, tasks)
        print(f"relabelled exams: {h}/{n}")
        h, n = rephrased(dec, tasks)
        print(f"rephrasings: {h}/{n} = {h / n:.3f}")
        print(
            f"relational ({a.relational_tables} tables, mixed-clauses eval stream): "
            f"{relational(rows):.3f}"
        )
    if a.skills:
        for k, (h, n) in rows.items():
            print(f"binding: {k} phrase(s) {h}/{n} = {h / n:.2f}")
        names = {"neutral": "neutral", "same": "same direction", "other": "other direction"}
        for (what, how), (h, n) in lookup(dec, 400).items():
            print(f"lookup: {names[what]} by {how} {h}/{n} = {h / n:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
