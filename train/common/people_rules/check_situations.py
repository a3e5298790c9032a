"""Check the hand-written situations of train/common/people_rules/*.situations.jsonl.

    python3 -m train.common.people_rules.check_situations [FILE ...]

One JSON object a line, for one rule of the matching partN.jsonl (same line order):
    {"rule": "<the rule, exactly>", "situations": [
        {"state": "one sentence", "holds": [[true], [false, true]], "answer": "B"}, ...]}
`holds` has one list per clause of the rule, one truth value per literal (the rule's labels'
order); `answer` is the letter the rule gives (checked against the truths and the default).
"""

from __future__ import annotations

import glob
import json
import os
import sys

from train.common.people_rules import check

HERE = os.path.dirname(os.path.abspath(__file__))


def chosen(rule: dict, holds: list[list[bool]]) -> set[str]:
    """The letters whose clause holds (and: all, or: any); the default when none does."""
    out = set()
    for c, h in zip(rule["clauses"], holds):
        if (any(h) if c["join"] == "or" else all(h)) and h:
            out.add(c["letter"])
    if not out and rule.get("default"):
        out.add(rule["default"])
    return out


def problems(rule: dict, row: dict) -> list[str]:
    out = []
    if row.get("rule") != rule["rule"]:
        return ["rule differs from the partN.jsonl line"]
    sits = row.get("situations", [])
    if len(sits) < 3:
        out.append("fewer than 3 situations")
    for s in sits:
        h = s.get("holds", [])
        shape = [len(c["texts"]) for c in rule["clauses"]]
        if [len(x) for x in h] != shape or not all(isinstance(v, bool) for x in h for v in x):
            out.append(f"{s.get('state', '')[:40]!r}: holds must be lists of true/false shaped {shape}")
            continue
        got = chosen(rule, h)
        if s.get("answer") not in got:
            out.append(
                f"{s['state'][:50]!r}: answer {s.get('answer')} but the truths give {sorted(got) or 'nothing'}"
            )
        elif len(got) > 1:
            out.append(
                f"{s['state'][:50]!r}: two options' conditions hold ({sorted(got)}); pick a clearer state"
            )
    return out


def pairs(paths: list[str] | None = None) -> list[tuple[dict, dict]]:
    """(rule row, situations row) for every situations file and its partN.jsonl."""
    out = []
    for p in paths or sorted(glob.glob(os.path.join(HERE, "*.situations.jsonl"))):
        with open(p.replace(".situations.jsonl", ".jsonl"), encoding="utf-8") as f:
            rules = [json.loads(line) for line in f if line.strip()]
        with open(p, encoding="utf-8") as f:
            sits = [json.loads(line) for line in f if line.strip()]
        out += list(zip(rules, sits))
    return out


def main() -> int:
    paths = sys.argv[1:] or sorted(glob.glob(os.path.join(HERE, "*.situations.jsonl")))
    rules = {p: check.load([p.replace(".situations.jsonl", ".jsonl")]) for p in paths}

    def problems_of(path: str, k: int, row: dict) -> list[str]:
        if k > len(rules[path]):
            return ["more lines than the rules file"]
        return problems(rules[path][k - 1], row)

    return check.report(paths, problems_of, "rules with situations")


if __name__ == "__main__":
    sys.exit(main())
