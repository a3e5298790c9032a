"""Check the hand-written situations of train/common/people_rules/*.situations.jsonl.

    python3 -m train.common.people_rules.check_situations [FILE ...]

One JSON object a line, for one rule of the matching partN.jsonl (same line order):
    {"rule": "<the rule, exactly>", "situations": [
        {"state": "one sentence", "holds": [[true], [false, true]], "answer": "B"}, ...]}
`holds` has one list per clause of the rule, one truth value per literal (the rule's labels'
order); `answer` is the letter the rule gives (checked against the truths and the default).
"""

from __future__ import annotations

import os
import sys

from train.common.people_rules import check


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


def situations_path(rule_path: str) -> str:
    """partN.jsonl -> partN.situations.jsonl, the file of its rules' situations."""
    return rule_path[: -len(".jsonl")] + ".situations.jsonl"


def pairs(rule_paths: list[str] | None = None) -> list[tuple[dict, dict]]:
    """(rule row, situations row) for every rules file that has a situations file beside it."""
    out = []
    for p in rule_paths or check.rule_files():
        if os.path.exists(situations_path(p)):
            out += list(zip(check.load([p]), check.load([situations_path(p)])))
    return out


def main() -> int:
    paths = sys.argv[1:] or [situations_path(p) for p in check.rule_files()]
    rules = {p: check.load([p[: -len(".situations.jsonl")] + ".jsonl"]) for p in paths}

    def problems_of(path: str, k: int, row: dict) -> list[str]:
        if k > len(rules[path]):
            return ["more lines than the rules file"]
        return problems(rules[path][k - 1], row)

    return check.report(paths, problems_of, "rules with situations")


if __name__ == "__main__":
    sys.exit(main())
