"""Spread the embeddings of tokens the training never reads, so an unseen word stays tellable.

    python3 -m train.nano.spread_unread --ckpt R/ckpt.pt --out R2/ckpt.pt [--per-stage 400] [--min-read 0]

Why: with tied embeddings every token is a negative of every output softmax, so a token that
is never read (no training text holds it) only ever gets that one push, the same for all such
tokens: their embeddings collapse onto one direction (mean cosine 0.84 in jh1, against 0.49 for
the tokens of training words). A rule table whose condition word
is one such token then reads like any other such word, and the lookup fails: unseen one-token
words were the worst group of the match tables (0.73). This maps the unread tokens' embeddings
affinely onto the read tokens' spread: centred on their own mean, scaled to the read tokens'
mean distance from theirs, then moved to the read tokens' mean. Their directions relative to
each other are kept (whatever the training left of them); only the shared part goes.

Which tokens are unread comes from training text only: --per-stage examples of every stage
the checkpoint (and its branches, for a stitched model) trained on, through its own tokenizer;
merged tokens read at most --min-read times there are moved. Byte tokens and special tokens
are never moved. The output is a model-only checkpoint (no optimizer state) that exports like
its input; its "spread" entry records what was done.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter

import torch

from .corpus import marks
from .corpus.curriculum import name_of, order
from .corpus.generate import example
from .tokenizer.bpe import CONTROL, Tokenizer

READ_WELL = 20  # a token read this often in the sample is one the training has shaped
SAMPLE_SEED = 7  # the sample's stream seed (any; the training streams use seed 0 upwards)


def trained_stages(st: dict) -> list[str]:
    """Every stage the checkpoint counts tables of, its stitched branches' included, in
    curriculum order (a checkpoint from before the stages were named counts them by seed)."""
    stages = set(name_of(k) for k in (st.get("counters") or {}))
    for parent in (st.get("parents") or {}).values():
        stages |= set(name_of(k) for k in (parent.get("counters") or {}))
    return sorted(stages, key=order)


def read_counts(tok: Tokenizer, stages: list[str], per_stage: int) -> Counter:
    counts: Counter = Counter()
    for s in stages:
        for i in range(per_stage):
            ex = example(SAMPLE_SEED, s, i)
            for text in [ex.prefix, *ex.suffixes]:
                counts.update(tok.encode(marks.strip(text)))
    return counts


def spread(embed: torch.Tensor, unread: list[int], read: list[int]) -> torch.Tensor:
    """embed with the unread rows mapped onto the read rows' mean and mean spread."""
    e = embed.double()
    m_u, m_r = e[unread].mean(0), e[read].mean(0)
    d_u = (e[unread] - m_u).norm(dim=1).mean()
    d_r = (e[read] - m_r).norm(dim=1).mean()
    out = e.clone()
    out[unread] = (e[unread] - m_u) * (d_r / d_u) + m_r
    return out.to(embed.dtype)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ckpt", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--per-stage", type=int, default=400, help="sample examples per trained stage")
    ap.add_argument("--min-read", type=int, default=0, help="move the tokens read at most this often")
    a = ap.parse_args(argv)
    if a.per_stage < 1 or a.min_read < 0 or a.min_read >= READ_WELL:
        print(f"spread_unread.py: want --per-stage >= 1 and 0 <= --min-read < {READ_WELL}", file=sys.stderr)
        return 2
    if not os.path.exists(a.ckpt):
        print(f"spread_unread.py: no checkpoint {a.ckpt}", file=sys.stderr)
        return 2
    try:
        st = torch.load(a.ckpt, map_location="cpu", weights_only=False)
        tok = Tokenizer.load(st["tokenizer"])
        embed = st["model"]["embed.weight"]
    except (OSError, RuntimeError, KeyError, TypeError, ValueError, EOFError) as e:
        print(f"spread_unread.py: cannot read {a.ckpt} as a training checkpoint: {e!r}", file=sys.stderr)
        return 2
    if "spread" in st:
        print(f"spread_unread.py: {a.ckpt} is already spread ({st['spread']})", file=sys.stderr)
        return 2
    stages = trained_stages(st)
    counts = read_counts(tok, stages, a.per_stage)
    merged = [t for t in range(256, len(tok)) if tok.types[t] != CONTROL]
    unread = [t for t in merged if counts[t] <= a.min_read]
    read = [t for t in merged if counts[t] >= READ_WELL]
    if len(unread) < 2 or len(read) < 2:
        print(
            f"spread_unread.py: {len(unread)} unread and {len(read)} well-read tokens: nothing to do",
            file=sys.stderr,
        )
        return 2
    model = dict(st["model"])
    model["embed.weight"] = spread(embed, unread, read)
    out = {
        **st,
        "model": model,
        "opt": None,
        "probes": None,
        "spread": {
            "unread": len(unread),
            "read": len(read),
            "stages": len(stages),
            "per_stage": a.per_stage,
            "min_read": a.min_read,
            "step": st["step"],
            "elapsed_s": st.get("elapsed_s", 0.0),
        },
    }
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    torch.save(out, a.out)
    print(
        f"{a.out}: {len(unread)} unread tokens (of {len(merged)} merged; {len(stages)} stages x "
        f"{a.per_stage} examples) spread like the {len(read)} read >= {READ_WELL} times"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
