"""Check the hand-written, hand-labelled rules of train/common/people_rules/*.jsonl.

    python3 -m train.common.people_rules.check [FILE ...]

One JSON object a line:
    {"domain": "marina", "rule": "...", "options": [["A", "text"], ...],
     "clauses": [{"letter": "B", "texts": ["..."], "antes": [null], "join": ""}, ...],
     "default": "C" | null}
`clauses` in the order they appear in the rule; each clause is one or more literals (exact
substrings of the rule, in order) joined by "and" / "or" ("" for one), choosing one option;
`antes[k]` is the words an "it"/"they" at the start of texts[k] stands for (an exact substring
earlier in the rule) or null. Every option is chosen by a clause or is the default.
"""

from __future__ import annotations

import glob
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
LETTERS = "ABCDEF"


def problems(row: dict) -> list[str]:
    out = []
    rule = row.get("rule", "")
    opts = row.get("options", [])
    letters = [o[0] for o in opts if isinstance(o, list) and len(o) == 2]
    if len(letters) != len(opts) or not 2 <= len(opts) <= 6:
        return ["options: 2-6 [letter, text] pairs"]
    if len(set(letters)) != len(letters) or any(x not in LETTERS for x in letters):
        out.append("letters must be distinct, A-F")
    at = 0
    chosen = set()
    for c in row.get("clauses", []):
        if c.get("letter") not in letters:
            out.append(f"clause letter {c.get('letter')!r} is no option")
        chosen.add(c.get("letter"))
        texts, antes = c.get("texts", []), c.get("antes", [])
        if not texts or len(antes) != len(texts):
            out.append("clause: texts and antes of one length, at least one")
            continue
        if c.get("join", "") not in ("", "and", "or") or (len(texts) > 1) != bool(c.get("join")):
            out.append(f"clause {texts}: join is 'and'/'or' for 2+ literals, '' for one")
        for t, a in zip(texts, antes):
            i = rule.find(t, at)
            if i < 0:
                out.append(f"literal {t!r} not found (in order) in the rule")
                continue
            if a is not None and rule.rfind(a, 0, i) < 0:
                out.append(f"antecedent {a!r} not found before {t!r}")
            at = i + len(t)
    d = row.get("default")
    if d is not None and d not in letters:
        out.append(f"default {d!r} is no option")
    if not row.get("clauses"):
        out.append("no clauses")
    missing = set(letters) - chosen - {d}
    if missing:
        out.append(f"options {sorted(missing)} are chosen by nothing")
    return out


def rule_files() -> list[str]:
    return sorted(p for p in glob.glob(os.path.join(HERE, "*.jsonl")) if not p.endswith(".situations.jsonl"))


def load(paths: list[str] | None = None) -> list[dict]:
    rows = []
    for p in paths or rule_files():
        with open(p, encoding="utf-8") as f:
            rows += [json.loads(line) for line in f if line.strip()]
    return rows


def report(paths: list[str], problems_of, what: str) -> int:
    """Prints every problem as FILE:LINE: message and a count; problems_of(path, line_no, row)
    gives a line's problems. Returns the exit status (1 when any)."""
    bad = n = 0
    for p in paths:
        with open(p, encoding="utf-8") as f:
            for k, line in enumerate(f, 1):
                if not line.strip():
                    continue
                n += 1
                try:
                    row = json.loads(line)
                    msgs = problems_of(p, k, row) if isinstance(row, dict) else ["not a JSON object"]
                except json.JSONDecodeError as e:
                    msgs = [f"not JSON: {e}"]
                except (KeyError, TypeError, AttributeError) as e:
                    msgs = [f"malformed: {e!r}"]
                for msg in msgs:
                    print(f"{p}:{k}: {msg}")
                bad += len(msgs)
    print(f"{n} {what}, {bad} problems")
    return 1 if bad else 0


def main() -> int:
    return report(sys.argv[1:] or rule_files(), lambda _p, _k, row: problems(row), "rules")


if __name__ == "__main__":
    sys.exit(main())
