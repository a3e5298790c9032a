"""Minimal binding probe: can a direction word be bound to its noun, and what makes it learnable?

    OPENBLAS_CORETYPE=SkylakeX python3 -m train.nano.diag.probe_binding                 # chance (0.693) throughout
    OPENBLAS_CORETYPE=SkylakeX python3 -m train.nano.diag.probe_binding --aux 1         # crosses at ~1,000-2,500 steps
    python3 -m train.nano.diag.probe_binding --aux 1 --pieces 40 --others 2 --verbs 3 --rel both

Synthetic token ids, no corpus. Prefix: [rule, same|opposite, <noun>, A, push, <dir>, B, push,
<dir>]; situation: phrases "the <noun> <verb...> <dir>" joined by "and" (the subject's and
`--others` more, always in the other direction, so reading any direction scores 0.5), then an
answer slot. Uses the trainer's model, mask pattern and shifted read-out. `--aux W` adds the
evidence probes of train.py --aux-binding: "this token is the subject noun" on layer
`--aux-layers`[0]'s output, "this is the subject's direction word" on [1]'s.
"""

from __future__ import annotations

import argparse
import random
import sys

import torch
import torch.nn.functional as F

from ..model import Config, DreamModel


class Vocab:
    def __init__(self):
        self.ids: dict[str, int] = {}

    def __call__(self, w: str) -> int:
        return self.ids.setdefault(w, len(self.ids))


def make_task(a):
    v = Vocab()
    for w in "pad mask the and same opposite push left right A B rule sit ans".split():
        v(w)
    if a.pieces:  # nouns of 1-3 sub-word pieces, like BPE's
        r = random.Random(5)
        pieces = [v(f"p{i}") for i in range(a.pieces)]
        nouns = sorted({tuple(r.choice(pieces) for _ in range(r.randint(1, 3))) for _ in range(a.nouns)})
    else:
        nouns = [(v(f"n{i}"),) for i in range(a.nouns)]
    verbs = [[v(f"v{i}")] + [v(f"w{j}") for j in range(i % a.verbs)] for i in range(2 * a.verbs)]

    def example(rng):
        """-> (prefix ids, situation ids, answer id, noun flags, direction flags)"""
        rel = "same" if a.rel == "same" or rng.random() < 0.5 else "opposite"
        subj, *others = rng.sample(nouns, 1 + a.others)
        d = rng.choice(("left", "right"))
        od = "right" if d == "left" else "left"
        first = rng.choice(("left", "right"))
        second = "right" if first == "left" else "left"
        letter = {first: "A", second: "B"}
        pre = [v("rule"), v(rel), *subj, v("A"), v("push"), v(first), v("B"), v("push"), v(second)]
        phrases = [(subj, d)] + [(o, od) for o in others]
        rng.shuffle(phrases)
        sit, fn, fd = [v("sit")], [0], [0]
        for i, (n, dd) in enumerate(phrases):
            if i:
                sit, fn, fd = sit + [v("and")], fn + [0], fd + [0]
            verb = rng.choice(verbs)
            mine = int(n == subj)
            sit += [v("the"), *n, *verb, v(dd)]
            fn += [0] + [mine] * len(n) + [0] * len(verb) + [0]
            fd += [0] + [0] * len(n) + [0] * len(verb) + [mine]
        sit += [v("ans"), v("mask")]
        fn, fd = fn + [0, 0], fd + [0, 0]
        return pre, sit, v(letter[d if rel == "same" else od]), fn, fd

    return example, len(v.ids)


def batch(example, rng, n):
    rows = [example(rng) for _ in range(n)]
    T = max(len(p) + len(s) for p, s, *_ in rows)
    ids = torch.zeros(n, T, dtype=torch.long)
    pos = torch.zeros_like(ids)
    seg = torch.full_like(ids, -1)
    flags = torch.zeros(n, T, 2)
    sit_mask = torch.zeros(n, T)
    slot = torch.zeros(n, dtype=torch.long)
    want = torch.zeros(n, dtype=torch.long)
    for b, (pre, sit, y, fn, fd) in enumerate(rows):
        P, L = len(pre), len(pre) + len(sit)
        ids[b, :L] = torch.tensor(pre + sit)
        pos[b, :L] = torch.arange(L)
        seg[b, :P], seg[b, P:L] = 0, 1
        flags[b, P:L, 0], flags[b, P:L, 1] = (
            torch.tensor(fn, dtype=torch.float),
            torch.tensor(fd, dtype=torch.float),
        )
        sit_mask[b, P:L] = 1
        slot[b], want[b] = L - 1, y
    return ids, pos, seg, flags, sit_mask, slot, want


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nouns", type=int, default=200)
    ap.add_argument("--pieces", type=int, default=0, help="build nouns from this many sub-word pieces")
    ap.add_argument("--rel", choices=("same", "both"), default="same")
    ap.add_argument("--verbs", type=int, default=1, help=">1: verb phrases of 1..N tokens")
    ap.add_argument("--others", type=int, default=1)
    ap.add_argument("--dim", type=int, default=64)
    ap.add_argument("--layers", type=int, default=3)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--aux", type=float, default=0.0)
    ap.add_argument("--aux-layers", default="0,1")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)
    torch.manual_seed(a.seed)
    example, vocab = make_task(a)
    m = DreamModel(
        Config(vocab=vocab, dim=a.dim, layers=a.layers, heads=4, kv_heads=2, ffn=3 * a.dim, context=128)
    )
    probes = torch.nn.ModuleList(torch.nn.Linear(a.dim, 1) for _ in range(2))
    layers = [int(x) for x in a.aux_layers.split(",")]
    opt = torch.optim.AdamW([*m.parameters(), *probes.parameters()], lr=a.lr, weight_decay=0.01)
    rng = random.Random(a.seed)
    ev = batch(example, random.Random(999), 1000)
    for step in range(1, a.steps + 1):
        ids, pos, seg, flags, sit_mask, slot, want = batch(example, rng, 64)
        taps = []
        z = m.head(m.hidden(ids, pos, seg, taps))
        loss = F.cross_entropy(z[torch.arange(64), slot - 1], want)  # Dream shift: slot read at slot-1
        if a.aux:
            for k, layer in enumerate(layers):
                p = probes[k](taps[layer]).squeeze(-1)
                bce = F.binary_cross_entropy_with_logits(p, flags[..., k], reduction="none")
                loss = loss + a.aux * (bce * sit_mask).sum() / sit_mask.sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 250 == 0:
            with torch.no_grad():
                ids, pos, seg, _, _, slot, want = ev
                got = m.head(m.hidden(ids, pos, seg))[torch.arange(len(slot)), slot - 1].argmax(-1)
            print(
                f"step {step} loss {loss.item():.3f} eval {(got == want).float().mean().item():.3f}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
