"""Refresh the held-out files from the built-in tasks themselves.

    python3 -m train.common.heldout.import_builtin --cli build/meadow-mind

Runs `meadow-mind list --json` (every task's rule, options and exam) and APPENDS to
train/common/heldout/<task>.txt whatever of these is missing there: the rule, every exam status
sentence, and option texts of 3+ words. Never removes lines: the task files may hold more
(e.g. every status sentence a perceiver can produce, curated by the tasks' author). Re-run it
whenever a task's wording changes, then train/nano/check_contamination.py.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default="build/meadow-mind")
    a = ap.parse_args(argv)
    out = subprocess.run([a.cli, "list", "--json"], check=True, capture_output=True, text=True).stdout
    for task in json.loads(out):
        lines = [task["rule"]]
        lines += [o["text"] for o in task.get("options", []) if len(o["text"].split()) >= 3]
        lines += [e["status"] for e in task.get("exam", [])]
        seen, uniq = set(), []
        for ln in lines:
            ln = " ".join(ln.split())
            if ln and ln not in seen:
                seen.add(ln)
                uniq.append(ln)
        path = os.path.join(HERE, task["name"] + ".txt")
        have = set()
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                have = {" ".join(ln.split("#", 1)[0].split()) for ln in f}
        new = [ln for ln in uniq if ln not in have]
        if new:
            with open(path, "a", encoding="utf-8") as f:
                if not have:
                    f.write(f"# {task['name']}: from `meadow-mind list --json` (import_builtin.py)\n")
                f.write("".join(ln + "\n" for ln in new))
        print(f"{path}: {len(new)} added, {len(uniq) - len(new)} already there")
    return 0


if __name__ == "__main__":
    sys.exit(main())
