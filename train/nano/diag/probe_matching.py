"""Minimal matching probe: is the "which rule word is in the situation" skill learnable?

    OPENBLAS_CORETYPE=SkylakeX python3 -m train.nano.diag.probe_matching --init scaled --steps 1500

Synthetic token ids, no corpus: prefix [w0, A, w1, B]; each of 8 packed situations is
[w_t, distractor(s)] in random order + one <|mask|>; the answer is the letter after w_t. Uses
the trainer's model, mask pattern and shifted read-out. --init gpt2 re-initialises with
std 0.02 (the plateau that did not end within 3,000 steps); --init scaled is model.py's.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

from ..model import Config, DreamModel


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--init", choices=("scaled", "gpt2", "mimetic"), default="scaled")
    ap.add_argument("--steps", type=int, default=1500)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--options", type=int, default=2)
    ap.add_argument("--dim", type=int, default=64)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--kv-heads", type=int, default=2)
    ap.add_argument("--vo", type=float, default=0.0)
    ap.add_argument("--words", type=int, default=2700, help="size of the content-id range")
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--clip", type=float, default=0.0, help="clip the gradient norm (the trainer uses 1.0)")
    ap.add_argument(
        "--rule-letters",
        choices=("same", "spaced"),
        default="same",
        help="letter ids in the rule: the answer's ('A') or the corpus rule's (' A')",
    )
    ap.add_argument("--gap", type=int, default=0, help="filler tokens between a rule word and its letter")
    ap.add_argument(
        "--noise",
        type=int,
        default=0,
        help="random word ids appended to the prefix (like the options block's texts)",
    )
    ap.add_argument(
        "--noise-vocab",
        type=int,
        default=0,
        help="draw the noise from this many fixed ids (0: from the content-word range)",
    )
    ap.add_argument("--distractors", type=int, default=1, help="distractor words per situation")
    ap.add_argument(
        "--tail",
        type=int,
        default=0,
        help="constant tokens between the situation and the mask (the corpus has 3-5: '\\nAnswer:')",
    )
    a = ap.parse_args(argv)
    if a.distractors < 0 or a.options < 2:
        ap.error("--options must be 2 or more and --distractors 0 or more")
    torch.set_num_threads(int(os.environ.get("PROBE_THREADS", "1")))
    torch.manual_seed(0)
    m = DreamModel(Config(dim=a.dim, layers=a.layers, heads=a.heads, kv_heads=a.kv_heads, ffn=3 * a.dim))
    if a.init == "gpt2":
        for p in m.parameters():
            if p.dim() == 2:
                nn.init.normal_(p, std=0.02)
    if a.init == "mimetic":
        m.mimetic_init(1.0, a.vo)
    opt = torch.optim.AdamW(m.parameters(), a.lr)
    rng = random.Random(0)
    mask, A, n_sit, K = 4095, 65, 8, a.options
    letters = [A + j for j in range(K)]
    if a.rule_letters == "spaced" and K != 2:
        ap.error("--rule-letters spaced knows only the ids of ' A' and ' B' (use --options 2)")
    rule_letters = letters if a.rule_letters == "same" else [339, 338][:K]  # " A", " B" in vocab.json
    gap = [20 + j for j in range(a.gap)]

    def batch():
        ids, pos, seg, tp, tt, first = [], [], [], [], [], []
        for b in range(a.batch):
            D = a.distractors
            w = rng.sample(range(300, 300 + a.words), K + n_sit * D)
            row = []
            for j in range(K):
                row += [w[j]] + gap + [rule_letters[j]]
            noise_lo, noise_n = (3100, a.noise_vocab) if a.noise_vocab else (300, a.words)
            row += [rng.randrange(noise_lo, noise_lo + noise_n) for _ in range(a.noise)]
            P = len(row)
            ps, sg = list(range(P)), [0] * P
            for s in range(n_sit):
                t = rng.randrange(K)
                sit = [w[t]] + w[K + s * D : K + (s + 1) * D]
                rng.shuffle(sit)
                first.append(sit[0] == w[t])
                tail = [10 + j for j in range(a.tail)]  # fixed filler ids (like "\nAnswer:")
                start = len(row)
                row += sit + tail + [mask]
                ps += list(range(P, P + len(sit) + 1 + a.tail))
                sg += [s + 1] * (len(sit) + 1 + a.tail)
                tp.append(
                    (b, start + len(sit) - 1 + a.tail)
                )  # shifted: the mask's token is read one row earlier
                tt.append(letters[t])
            ids.append(row)
            pos.append(ps)
            seg.append(sg)
        return (
            torch.tensor(ids),
            torch.tensor(pos),
            torch.tensor(seg),
            torch.tensor(tp),
            torch.tensor(tt),
            torch.tensor(first),
        )

    t0, acc, acc_first = time.time(), [], []
    for step in range(1, a.steps + 1):
        ids, pos, seg, tp, tt, first = batch()
        z = m.head(m.hidden(ids, pos, seg)[tp[:, 0], tp[:, 1]])
        loss = F.cross_entropy(z, tt)
        opt.zero_grad()
        loss.backward()
        if a.clip:
            torch.nn.utils.clip_grad_norm_(m.parameters(), a.clip)
        opt.step()
        hit = (z[:, letters].argmax(-1) == (tt - A)).float()
        acc.append(hit.mean().item())
        acc_first += [(bool(f), h) for f, h in zip(first.tolist(), hit.tolist())]
        if step % 250 == 0:
            # split by where the matched word sits in the situation: a read-out that gathers
            # the situation by position answers the first word's letter more often
            hf = [h for f, h in acc_first if f]
            hs = [h for f, h in acc_first if not f]
            print(
                f"init={a.init} step {step}: accuracy {sum(acc) / len(acc):.3f} (word first "
                f"{sum(hf) / max(1, len(hf)):.3f}, second {sum(hs) / max(1, len(hs)):.3f}) "
                f"({time.time() - t0:.0f} s)",
                flush=True,
            )
            acc, acc_first = [], []
    return 0


if __name__ == "__main__":
    sys.exit(main())
