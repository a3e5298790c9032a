#!/usr/bin/env python3
"""Check and count the hand-written natural-rule exam set.

  exam_set.py check FILE   validate every line, print counts; exit 1 on any violation
  exam_set.py stats FILE   print counts only

Exit status: 0 ok, 1 violations (check), 2 bad usage or unreadable file.
"""

import collections
import json
import sys

FORMS = (
    "if",
    "when",
    "means",
    "colon",
    "arrow",
    "bullets",
    "table",
    "parentheses",
    "named-by-text",
    "otherwise-first",
    "otherwise-middle",
    "otherwise-last",
    "multi-condition",
    "and",
    "or",
    "not",
    "unless",
    "number-threshold",
    "distractor",
    "synonym",
    "inflection",
    "passive",
    "letters-out-of-order",
    "default",
)
OTHERWISE = ("otherwise-first", "otherwise-middle", "otherwise-last")
LETTERS = "ABCDEF"
KEYS = ("id", "domain", "forms", "rule", "options", "state", "answer")
MIN_PER_FORM = 15


def load(path):
    """Return a list of (line number, raw text) for the non-blank lines of path."""
    with open(path, encoding="utf-8") as f:
        return [(n, line) for n, line in enumerate(f, 1) if line.strip()]


def check_item(item):
    """Return a list of problems with one parsed item (empty when it is fine)."""
    if not isinstance(item, dict):
        return ["not a JSON object"]
    errs = []
    missing = [k for k in KEYS if k not in item]
    extra = [k for k in item if k not in KEYS]
    if missing:
        errs.append("missing keys: " + ", ".join(missing))
    if extra:
        errs.append("unknown keys: " + ", ".join(extra))
    if missing:
        return errs
    for key in ("id", "domain", "rule", "state", "answer"):
        if not isinstance(item[key], str) or not item[key].strip():
            errs.append(f"{key} must be a non-empty string")
    forms = item["forms"]
    if not isinstance(forms, list) or not all(isinstance(t, str) for t in forms):
        errs.append("forms must be a list of strings")
        forms = []
    unknown = [t for t in forms if t not in FORMS]
    if unknown:
        errs.append("unknown form tags: " + ", ".join(unknown))
    if len(set(forms)) != len(forms):
        errs.append("repeated form tag")
    letters = []
    opts = item["options"]
    if not isinstance(opts, list) or not 2 <= len(opts) <= 6:
        errs.append("options must be a list of 2-6 entries")
        opts = opts if isinstance(opts, list) else []
    for opt in opts:
        ok = isinstance(opt, list) and len(opt) == 2 and all(isinstance(x, str) for x in opt)
        if not ok:
            errs.append(f"bad option {opt!r}: want [letter, text]")
            continue
        if len(opt[0]) != 1 or opt[0] not in LETTERS:
            errs.append(f"option letter {opt[0]!r} is not one of A-F")
        if not opt[1].strip():
            errs.append(f"option {opt[0]} has empty text")
        letters.append(opt[0])
    if len(set(letters)) != len(letters):
        errs.append("option letters are not distinct")
    if isinstance(item["answer"], str) and item["answer"] not in letters:
        errs.append(f"answer {item['answer']!r} is not among the option letters")
    out_of_order = letters != sorted(letters)
    if out_of_order != ("letters-out-of-order" in forms):
        errs.append("letters-out-of-order tag does not match the option order")
    if "default" in forms and not any(t in forms for t in OTHERWISE):
        errs.append("default answer without an otherwise-* tag")
    if sum(t in forms for t in OTHERWISE) > 1:
        errs.append("more than one otherwise-* tag")
    for tag in ("bullets", "table"):
        if tag in forms and isinstance(item["rule"], str) and "\n" not in item["rule"]:
            errs.append(f"{tag} tag but the rule has no line break")
    texts = [item[k] for k in ("id", "domain", "rule", "state") if isinstance(item[k], str)]
    texts += [o[1] for o in opts if isinstance(o, list) and len(o) == 2 and isinstance(o[1], str)]
    if any("<|" in t for t in texts):
        errs.append("contains special-token text '<|'")
    return errs


def parse(lines):
    """Parse lines; return (items, problems) where problems are 'line N: ...' strings."""
    items, problems, seen = [], [], {}
    for n, line in lines:
        try:
            item = json.loads(line)
        except json.JSONDecodeError as e:
            problems.append(f"line {n}: bad JSON: {e}")
            continue
        for err in check_item(item):
            problems.append(f"line {n}: {err}")
        if isinstance(item, dict) and isinstance(item.get("id"), str):
            if item["id"] in seen:
                problems.append(f"line {n}: id {item['id']!r} repeats line {seen[item['id']]}")
            seen.setdefault(item["id"], n)
        items.append(item)
    return items, problems


def counts(items):
    """Return the summary counters of a list of parsed items."""
    good = [i for i in items if isinstance(i, dict) and not check_item(i)]
    domains = collections.Counter(i["domain"] for i in good)
    forms = collections.Counter(t for i in good for t in i["forms"])
    answers = collections.Counter(i["answer"] for i in good)
    positions = collections.Counter(
        1 + [o[0] for o in i["options"]].index(i["answer"]) for i in good
    )
    sizes = collections.Counter(len(i["options"]) for i in good)
    return good, domains, forms, answers, positions, sizes


def report(items):
    """Print the counts; return the tags that fall below MIN_PER_FORM."""
    good, domains, forms, answers, positions, sizes = counts(items)
    print(f"items: {len(good)}")
    print(f"domains: {len(domains)}")
    low, high = min(domains.values(), default=0), max(domains.values(), default=0)
    print(f"items per domain: min {low}, max {high}")
    print("form tags:")
    for tag in FORMS:
        print(f"  {tag:22s} {forms[tag]}")
    print("answer letters: " + ", ".join(f"{k} {answers[k]}" for k in LETTERS if answers[k]))
    print("answer positions: " + ", ".join(f"{k} {positions[k]}" for k in sorted(positions)))
    print("options per item: " + ", ".join(f"{k} {sizes[k]}" for k in sorted(sizes)))
    return [t for t in FORMS if forms[t] < MIN_PER_FORM]


def main(argv):
    """Run the command line; return the exit status."""
    if len(argv) != 3 or argv[1] not in ("check", "stats"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        lines = load(argv[2])
    except (OSError, UnicodeDecodeError) as e:
        print(f"cannot read {argv[2]}: {e}", file=sys.stderr)
        return 2
    items, problems = parse(lines)
    if argv[1] == "stats":
        report(items)
        return 0
    for p in problems:
        print(p)
    thin = report(items)
    if thin:
        print(f"tags on fewer than {MIN_PER_FORM} items: " + ", ".join(thin))
    print(f"{len(problems)} violation(s)")
    return 1 if problems or thin else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
