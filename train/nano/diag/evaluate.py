"""Accuracy table of a checkpoint on fresh synthetic tables (the eval stream training never reads).

    python3 -m train.nano.diag.evaluate --ckpt train/runs/NAME/ckpt.pt [--tables 300]

Prints, per curriculum stage and per rule kind (match / bucket / relational), the accuracy
of the argmax over the table's option letters at the first answer slot (what the runtime's
decision pass reads) and the chance level. Issue 4's full table (unseen words, relational,
built-in exams, relabelling invariance, hand rephrasings) is train/nano/eval_table.py.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import defaultdict

import torch

from ..batching import Packer
from ..corpus.curriculum import STAGES, name_of
from ..corpus.generate import example
from ..model import Config, DreamModel
from ..tokenizer.bpe import Tokenizer
from ..train import EVAL_SEED_OFFSET, letter_accuracy


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ckpt", required=True)
    ap.add_argument("--tables", type=int, default=300)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--stages", default=None, help="comma list of stages to evaluate (default: all)")
    a = ap.parse_args(argv)
    try:
        stages = list(STAGES) if a.stages is None else [name_of(x) for x in a.stages.split(",")]
    except KeyError as e:
        ap.error(f"--stages {a.stages!r}: {e.args[0]}")
    torch.set_num_threads(a.threads)
    st = torch.load(a.ckpt, map_location="cpu")
    model = DreamModel(Config(**st["config"]))
    model.load_state_dict(st["model"])
    model.eval()
    tok = Tokenizer.load(st["tokenizer"])
    packer = Packer(tok)
    seed = st["seed"] + EVAL_SEED_OFFSET
    print(f"checkpoint step {st['step']} (stage {st['stage']}); {a.tables} fresh tables per stage")
    print(f"{'stage':>24} {'kind':>10} {'n':>5} {'acc':>7} {'chance':>7}")
    for s in stages:
        res = defaultdict(lambda: [0.0, 0, 0.0])
        exs = [example(seed, s, i) for i in range(a.tables)]
        rng = random.Random(f"evaluate:{s}")
        with torch.no_grad():
            for i in range(0, len(exs), 32):
                chunk = exs[i : i + 32]
                b = packer.batch(chunk, rng)
                rows = b["letter_rows"]
                h = model.hidden(b["ids"], b["pos"], b["seg"])
                z = model.head(h[b["t_batch"][rows], b["t_pos"][rows]])
                hits = letter_accuracy(z, packer.letter_ids, b["letter_sets"], b["letter_ans"])
                kinds = [chunk[int(bi)].kind for bi in b["t_batch"][rows]]
                for kind, hit, ls in zip(kinds, hits.tolist(), b["letter_sets"]):
                    for key in (kind, "all"):
                        res[key][0] += hit
                        res[key][1] += 1
                        res[key][2] += 1.0 / len(ls)
        for kind in ("match", "bucket", "relational", "all"):
            if kind in res:
                h_, n, c = res[kind]
                print(f"{s:>5} {kind:>10} {n:>5} {h_ / n:7.3f} {c / n:7.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
