"""Event tables through a checkpoint (the rows train/DESIGN.md's "events" quotes).

    OMP_NUM_THREADS=2 python3 -m train.nano.diag.probe_events --ckpt ~/.meadow-mind/train/checkpoints/events/ckpt.pt

(the shipped model's checkpoint in the training cache: train/nano/checkpoints.md)

Four rows, each from eval_table.synthetic_cases (the held-out eval stream, the runtime's layout,
every situation stating one condition): stage 67's tables with seen and with unseen words, then
stage 74's tables forced to one shape: every predicate ending in the same BPE token
(`event_same_end`, where the model used to match by that last token) and every predicate in one
grammatical form (`event_uniform`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from .. import eval_table as E

ROWS = (  # name, stage, split, forced stage fields, share of --tables
    ("events", "events", "train", {}, 1.0),
    ("events, unseen words", "events", "unseen", {}, 1.0),
    ("events-same-end, one last token", "events-same-end", "train", {"event_same_end": 1.0}, 0.5),
    (
        "events-same-end, one form",
        "events-same-end",
        "train",
        {"event_uniform": 1.0, "event_same_end": 0.0},
        0.5,
    ),
)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ckpt", required=True)
    ap.add_argument(
        "--tables", type=int, default=120, help="tables of each stage-67 row (half for stage 74's)"
    )
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--json", help="also write the rows here")
    a = ap.parse_args(argv)
    if a.tables < 1:
        ap.error(f"--tables {a.tables}: want at least 1")
    if not os.path.isfile(a.ckpt):
        print(f"probe_events: no checkpoint {a.ckpt}", file=sys.stderr)
        return 2
    dec = E.TorchDecider(a.ckpt, a.threads)
    seed = dec.seed + E.EVAL_SEED_OFFSET
    rows = []
    print("| row | situations | accuracy |\n| --- | --- | --- |")
    for name, stage, split, knobs, share in ROWS:
        cases = E.synthetic_cases(seed, stage, max(1, round(a.tables * share)), split=split, knobs=knobs)
        for case, choices in zip(cases, dec.choose(cases)):
            case.choices = choices
        hits = E.synthetic_hits(cases)
        rows.append({"name": name, "n": len(hits), "accuracy": sum(hits) / len(hits)})
        print(f"| {name} | {len(hits)} | {rows[-1]['accuracy']:.3f} |", flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"ckpt": a.ckpt, "tables": a.tables, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
