"""Where the answer row looks, and what one head writes, for mountaincar's still items.

    python3 -m train.nano.diag.still_items --ckpt train/runs/R/ckpt.pt [--head 7]

For each still situation (and one moving one): per layer, the three heads with the most
attention mass from the answer-reading row (the last suffix token) on the rule's two still
clauses (c1 = "still left ... push right", c2 = "still right ... do nothing"); then the
letter probabilities, and the direct contribution of --head (last layer) to the A/B/C logits
through the final norm. Measured: the pointer head attends 1.00 to the right clause but
writes almost nothing toward the letters (|contribution| < 0.1).

RULE is mountaincar's rule as it was before, with still clauses that name their
options by text; the task's rule now names letters ("..., choose C. ..., choose B."), which
every checkpoint reads at 1.00 (by text 0.46-0.82). This tool studies the text case.
"""

from __future__ import annotations

import argparse
import os
import sys

import torch

from ..corpus import layout
from ..corpus import templates as T
from ..model import Config, DreamModel
from ..tokenizer.bpe import Tokenizer

TRAIN = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

RULE = (
    "Push in the same direction the car is moving, to pump energy like a swing. If the car is still left of the "
    "middle, push right. If the car is still right of the middle, do nothing."
)
OPTIONS = "A) push left\nB) do nothing\nC) push right\n"
SITUATIONS = (
    "the car is still left of the middle",
    "the car is still right of the middle",
    "the car is moving right and is low in the valley",
)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ckpt", required=True)
    ap.add_argument("--head", type=int, default=7)
    ap.add_argument("--tokenizer", default=os.path.join(TRAIN, "tokenizer", "vocab.json"))
    a = ap.parse_args(argv)
    st = torch.load(a.ckpt, weights_only=False)
    m = DreamModel(Config(**st["config"]))
    m.load_state_dict(st["model"])
    m.eval()
    c, hd = m.c, m.c.head_dim
    if not 0 <= a.head < c.heads:
        ap.error(f"--head {a.head}: the model has heads 0..{c.heads - 1}")
    tok = Tokenizer.load(a.tokenizer)
    pre = tok.encode(layout.chat_prefix(T.DEFAULT_SYSTEM, RULE, OPTIONS))
    # which part of the prefix each token is in: 0 before the clauses, 1 / 2 the clauses, 3 the options
    text = [tok.decode([t]) for t in pre]
    full = "".join(text)
    c1, c2, end = (
        full.index("If the car is still left"),
        full.index("If the car is still right"),
        full.index("Options:"),
    )
    part, at = [], 0
    for t in text:
        part.append(0 if at < c1 else 1 if at < c2 else 2 if at < end else 3)
        at += len(t)
    part = torch.tensor(part)
    letters = [tok.encode(x)[0] for x in "ABC"]
    for sit in SITUATIONS:
        suf = tok.encode(layout.chat_suffix(sit))
        P = len(pre)
        ids = torch.tensor([pre + suf + [tok.mask]])
        pos = torch.tensor([list(range(P + len(suf) + 1))])
        seg = torch.tensor([[0] * P + [1] * (len(suf) + 1)])
        row = P + len(suf) - 1
        print(sit)
        with torch.no_grad():
            for layer in range(c.layers):
                atts = []
                m.hidden(ids, pos, seg, None, atts, layer)
                w = atts[0][0][0, :, row, :P]
                mass = [w[:, part == k].sum(-1) for k in range(4)]
                top = (mass[1] + mass[2]).argsort(descending=True)[:3].tolist()
                print(
                    f"  layer {layer}: "
                    + "  ".join(
                        f"h{h} c1 {mass[1][h]:.2f} c2 {mass[2][h]:.2f} options {mass[3][h]:.2f}" for h in top
                    )
                )
            taps, atts = [], []
            hfin = m.hidden(ids, pos, seg, taps, atts, c.layers - 1)
            out = atts[0][1][0, a.head, row]  # the head's output before W_o
            write = m.blocks[-1].o.weight[:, a.head * hd : (a.head + 1) * hd] @ out
            x = taps[-1][0, row]
            scale = m.norm.weight / x.pow(2).mean().add(c.eps).sqrt()
            direct = m.head(write * scale)[letters]
            final = torch.softmax(m.head(hfin[0, row])[letters], -1)
        print(
            "  letters A/B/C "
            + " ".join(f"{p:.2f}" for p in final.tolist())
            + f"; head {a.head}'s direct logit contribution "
            + " ".join(f"{p:+.2f}" for p in direct.tolist())
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
