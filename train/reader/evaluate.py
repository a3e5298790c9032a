"""Score meadow-reader (PyTorch) on exam sets: overall, per form tag, and the margin curve.

.venv-train/bin/python -m train.reader.evaluate CKPT_DIR [EXAM.jsonl ...] [--show N]
"""

from __future__ import annotations

import argparse
import collections
import json
import os

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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("ckpt")
    ap.add_argument("exams", nargs="*", default=EXAMS)
    ap.add_argument("--show", type=int, default=0, help="print this many misses per set")
    args = ap.parse_args()
    from train.reader.model import load_checkpoint

    model, tok = load_checkpoint(args.ckpt)
    for path in args.exams:
        s = score(model, tok, load(path))
        print(
            f"{os.path.basename(path)}: {s['acc']:.3f} of {s['n']}; margin>=0.5: {s['sure_acc']:.3f} of {s['sure_n']}"
        )
        print("  " + ", ".join(f"{f} {a:.2f}" for f, a in s["forms"].items()))
        for r in [r for r in s["records"] if not r["ok"]][: args.show]:
            print(json.dumps({k: r[k] for k in ("id", "letter", "answer", "state", "reading", "literals")}))


if __name__ == "__main__":
    main()
