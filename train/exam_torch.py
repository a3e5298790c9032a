"""The built-in tasks' exams decided by a PyTorch checkpoint (fast feedback while training).

    python3 train/exam_torch.py --ckpt train/runs/NAME/ckpt.pt [--tasks tasks.json]

Builds each prompt exactly as the runtime does (train/README.md contract: chat layout,
prefix and suffix tokenized apart, a slot of 3 <|mask|>) and prints, per task, the misses.
The shipped numbers come from the C++ runtime (eval_table.py); this is the quick look.
`--tasks` is `meadow-mind list --json` saved to a file.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

from corpus import layout, templates  # noqa: E402
from model import Config, DreamModel  # noqa: E402
from tokenizer.bpe import Tokenizer  # noqa: E402


def decide(model, tok, rule, options, statuses):
    """-> [(letter, probs)] for each status; options: [(letter, text)]."""
    prefix = layout.chat_prefix(templates.DEFAULT_SYSTEM, rule, "".join(f"{L}) {t}\n" for L, t in options))
    pids = tok.encode(prefix)
    ids, pos, seg, rows = list(pids), list(range(len(pids))), [0] * len(pids), []
    for s, st in enumerate(statuses, start=1):
        sids = tok.encode(layout.chat_suffix(st)) + [tok.mask] * 3
        rows.append(len(ids) + len(sids) - 4)  # the last suffix token predicts the first mask
        ids += sids
        pos += list(range(len(pids), len(pids) + len(sids)))
        seg += [s] * len(sids)
    with torch.no_grad():
        h = model.hidden(torch.tensor([ids]), torch.tensor([pos]), torch.tensor([seg]))
        z = model.head(h[0, rows])
    lid = [tok.encode(L)[0] for L, _ in options]
    p = torch.softmax(z[:, lid], -1)
    return [(options[int(i)][0], pr.tolist()) for i, pr in zip(p.argmax(-1), p)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ckpt", required=True)
    ap.add_argument("--tasks", default="/tmp/tasks.json")
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args(argv)
    st = torch.load(a.ckpt, map_location="cpu")
    model = DreamModel(Config(**st["config"]))
    model.load_state_dict(st["model"])
    model.eval()
    tok = Tokenizer.load(st["tokenizer"])
    total = 0
    for t in json.load(open(a.tasks)):
        opts = [(o["letter"], o["text"]) for o in t["options"]]
        exam = t["exam"]
        got = decide(model, tok, t["rule"], opts, [e["status"] for e in exam])
        miss = [(e, g) for e, g in zip(exam, got) if g[0] != e["expected"]]
        total += len(miss)
        print(f"{t['name']:12s} {len(exam) - len(miss):3d}/{len(exam)}")
        if a.verbose:
            for e, g in miss:
                print(f"   want {e['expected']} got {g[0]} {[round(x, 2) for x in g[1]]}: {e['status']}")
    print(f"misses: {total} (step {st['step']}, stage {st['stage']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
