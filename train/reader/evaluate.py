"""Score meadow-reader (PyTorch) on exam sets: overall, per form tag, and the margin curve.

.venv-train/bin/python -m train.reader.evaluate CKPT_DIR [EXAM.jsonl ...] [--show N]
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re

from train.reader import decide as D

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMS = [os.path.join(ROOT, "tests", "data", "exams", n) for n in ("natural.jsonl", "fresh.jsonl")]


def load(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def score(model, tok, items: list[dict]) -> dict:
    """Accuracy overall and per form; each item's record (for --show and calibration)."""
    groups: dict = collections.defaultdict(list)
    for it in items:
        groups[(it["rule"], json.dumps(it["options"]))].append(it)
    records = []
    for (rule, _), its in groups.items():
        options = [tuple(o) for o in its[0]["options"]]
        reading = D.read(model, tok, rule, options)
        for it, d in zip(its, D.decide(model, tok, reading, [it["state"] for it in its])):
            p = sorted(d["probs"].values(), reverse=True)
            records.append(
                {
                    "id": it.get("id", ""),
                    "forms": it.get("forms", []),
                    "ok": d["letter"] == it["answer"],
                    "margin": p[0] - (p[1] if len(p) > 1 else 0.0),
                    "letter": d["letter"],
                    "answer": it["answer"],
                    "rule": rule,
                    "state": it["state"],
                    "reading": [
                        (o.letter, [c.texts for c in o.clauses], round(o.p_default, 2))
                        for o in reading.options
                    ],
                    "literals": [(t, round(p, 2)) for t, p in d["literals"]],
                }
            )
    by_form: dict = collections.defaultdict(lambda: [0, 0])
    for r in records:
        for f in r["forms"]:
            by_form[f][0] += r["ok"]
            by_form[f][1] += 1
    sure = [r for r in records if r["margin"] >= 0.5]
    return {
        "acc": sum(r["ok"] for r in records) / max(1, len(records)),
        "n": len(records),
        "forms": {f: round(a / n, 3) for f, (a, n) in sorted(by_form.items())},
        "sure_acc": sum(r["ok"] for r in sure) / max(1, len(sure)),
        "sure_n": len(sure),
        "records": records,
    }


def _words(t: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", t.lower()))


def reading_score(model, tok, rows: list[dict]) -> dict:
    """How the reader reads hand-labelled rules (train/common/people_rules rows): each labelled
    literal found under the right option (a literal read there sharing half its words), the
    default, and whole rules read right (every literal placed, nothing extra, the default)."""
    placed = total = extra = default_ok = whole = 0
    for row in rows:
        reading = D.read(model, tok, row["rule"], [tuple(o) for o in row["options"]])
        got = {o.letter: [t for c in o.clauses for t in c.texts] for o in reading.options}
        ok_rule = reading.default == row["default"]
        default_ok += ok_rule
        want_n = {letter: 0 for letter, _ in row["options"]}
        for c in row["clauses"]:
            for t in c["texts"]:
                w = _words(t)
                hit = any(len(w & _words(g)) * 2 >= len(w) for g in got.get(c["letter"], []))
                placed += hit
                total += 1
                ok_rule &= hit
                want_n[c["letter"]] += 1
        more = sum(max(0, len(got[k]) - n) for k, n in want_n.items())
        extra += more
        whole += ok_rule and more == 0
    n = max(1, len(rows))
    return {
        "literals_placed": placed / max(1, total),
        "extra_literals_per_rule": extra / n,
        "default": default_ok / n,
        "rules_read_right": whole / n,
        "n": len(rows),
    }


def people_items(paths: list[str]) -> list[dict]:
    """Decision items from hand-labelled rules and their situations (people_rules), exam-shaped."""
    from train.common.people_rules import check_situations as sits

    out = []
    for rule, row in sits.pairs(paths):
        for k, s in enumerate(row["situations"]):
            out.append(
                {
                    "id": f"{rule['domain']}-{k}",
                    "forms": [],
                    "rule": rule["rule"],
                    "options": rule["options"],
                    "state": s["state"],
                    "answer": s["answer"],
                }
            )
    return out


def gold_reading(row: dict) -> D.Reading:
    """The reading a hand-labelled rule's labels give (pronouns resolved)."""
    from train.reader.data import resolved

    out = []
    for letter, text in row["options"]:
        clauses = [
            D.Clause([resolved(t, a) for t, a in zip(c["texts"], c["antes"])], c["join"])
            for c in row["clauses"]
            if c["letter"] == letter
        ]
        out.append(D.OptionReading(letter, text, clauses, float(letter == row["default"])))
    return D.Reading(out)


def judge_alone(model, tok, paths: list[str]) -> dict:
    """Decisions on hand-labelled rules' situations with their labelled reading (the judge's
    share of the misses), and the judge's accuracy on each labelled literal."""
    from train.common.people_rules import check_situations as sits

    right = n = lit_right = lit_n = 0
    for rule, row in sits.pairs(paths):
        reading = gold_reading(rule)
        # Reading.literals() lists option by option; the labels go clause by clause
        letters = [o[0] for o in rule["options"]]
        order = sorted(range(len(rule["clauses"])), key=lambda k: letters.index(rule["clauses"][k]["letter"]))
        for s, d in zip(
            row["situations"], D.decide(model, tok, reading, [s["state"] for s in row["situations"]])
        ):
            right += d["letter"] == s["answer"]
            n += 1
            want = [v for k in order for v in s["holds"][k]]
            for (_, p), w in zip(d["literals"], want):
                lit_right += (p >= 0.5) == w
                lit_n += 1
    return {
        "decisions": round(right / max(1, n), 3),
        "n": n,
        "literals": round(lit_right / max(1, lit_n), 3),
        "literal_n": lit_n,
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("ckpt")
    ap.add_argument("exams", nargs="*", default=EXAMS)
    ap.add_argument("--show", type=int, default=0, help="print this many misses per set")
    ap.add_argument("--no-exams", action="store_true", help="only the reading scores")
    ap.add_argument("--reading", nargs="*", default=[], help="hand-labelled rules (people_rules/*.jsonl)")
    args = ap.parse_args()
    from train.reader.model import load_checkpoint

    model, tok = load_checkpoint(args.ckpt)
    if args.reading:
        from train.common.people_rules import check as people_rules

        scores = reading_score(model, tok, people_rules.load(args.reading))
        print("reading:", json.dumps({k: round(v, 3) for k, v in scores.items()}))
        items = people_items(args.reading)
        if items:
            s = score(model, tok, items)
            print(
                f"decisions on their situations: {s['acc']:.3f} of {s['n']}; "
                f"margin>=0.5: {s['sure_acc']:.3f} of {s['sure_n']}"
            )
            print("with the labelled reading:", json.dumps(judge_alone(model, tok, args.reading)))
    for path in [] if args.no_exams else args.exams:
        s = score(model, tok, load(path))
        print(
            f"{os.path.basename(path)}: {s['acc']:.3f} of {s['n']}; margin>=0.5: {s['sure_acc']:.3f} of {s['sure_n']}"
        )
        print("  " + ", ".join(f"{f} {a:.2f}" for f, a in s["forms"].items()))
        for r in [r for r in s["records"] if not r["ok"]][: args.show]:
            print(json.dumps({k: r[k] for k in ("id", "letter", "answer", "state", "reading", "literals")}))


if __name__ == "__main__":
    main()
