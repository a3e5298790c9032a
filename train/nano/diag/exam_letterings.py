"""Every lettering of every built-in exam through a checkpoint: each permutation of a task's
letters (in the rule and the options, which keep their listing order) must move the answer with
the option. A sharper check than the eval table's one derangement per item: it found that jq1
chose lunarlander's default by its text, not by "Otherwise choose L" (35 of 240 letterings wrong).

    python3 -m train.nano.diag.exam_letterings --ckpt train/runs/NAME/ckpt.pt [--tasks lunarlander,maze] [--show 10]

Exit 0 when every lettering is right, 1 when some are wrong, 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys

from .. import eval_table as E

TRAIN = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ckpt", required=True)
    ap.add_argument("--cli", default=os.path.join(TRAIN, "..", "..", "build", "meadow-mind"))
    ap.add_argument(
        "--tasks-json", help="`meadow-mind list --json` saved to a file (instead of running --cli)"
    )
    ap.add_argument("--tasks", default=",".join(E.BUILTIN))
    ap.add_argument("--show", type=int, default=10, help="misses listed per task")
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args(argv)
    if a.tasks_json:
        try:
            with open(a.tasks_json, encoding="utf-8") as f:
                listing = json.load(f)
        except (OSError, ValueError) as e:
            print(f"exam_letterings.py: cannot read --tasks-json {a.tasks_json}: {e}", file=sys.stderr)
            return 2
    elif os.path.exists(a.cli):
        listing = json.loads(subprocess.check_output([a.cli, "list", "--json"]))
    else:
        print(
            f"exam_letterings.py: {a.cli} not found (build meadow-mind, or pass --cli / --tasks-json)",
            file=sys.stderr,
        )
        return 2
    tasks = {t["name"]: t for t in listing}
    unknown = [n for n in a.tasks.split(",") if n not in tasks]
    if unknown:
        print(f"exam_letterings.py: no built-in task {', '.join(unknown)}", file=sys.stderr)
        return 2
    dec = E.TorchDecider(a.ckpt, threads=a.threads)
    wrong_all = 0
    for name in a.tasks.split(","):
        t = tasks[name]
        opts = [(o["letter"], o["text"]) for o in t["options"]]
        letters = [L for L, _ in opts]
        sits = [e["status"] for e in t["exam"]]
        total, misses = 0, []
        for p in itertools.permutations(letters):
            perm = dict(zip(letters, p))
            rule, opts2 = E.relabel(t["rule"], opts, perm)
            for e, probs in zip(t["exam"], dec.probs([(rule, opts2, sits)])[0]):
                total += 1
                got = max(probs, key=probs.get)
                if got != perm[e["expected"]]:
                    misses.append(("".join(p), e["status"], perm[e["expected"]], got, round(probs[got], 2)))
        wrong_all += len(misses)
        print(f"{name}: {len(misses)} of {total} decisions wrong over {total // len(sits)} letterings")
        for m in misses[: a.show]:
            print(f"  letters {m[0]}: '{m[1]}' wants {m[2]}, got {m[3]} ({m[4]})")
    return 1 if wrong_all else 0


if __name__ == "__main__":
    sys.exit(main())
