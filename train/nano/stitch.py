"""Stitch two checkpoints side by side into one wider model that starts with both skills.

    python3 -m train.nano.stitch --a ~/.meadow-mind/train/checkpoints/nano/ckpt.pt --b train/runs/w2/ckpt.pt \
        --out train/runs/S/ckpt.pt

Two models of the same vocabulary and head size, trained on different curricula (the
scene register; the open-vocabulary word tables), each hold a circuit the other lacks, and
teaching either one the other's skill was slow (about a third of the speed). The stitched
model has dim = dim_a + dim_b, heads, KV heads and FFN summed, and every weight block-diagonal:
A's heads and FFN units read and write only A's residual dims, B's only B's. The tied
embedding is [E_a, E_b], so the logits are the sum of the two models' logits (a product of
experts) for the training that follows to learn which expert to trust.

What is not exact: RMSNorm divides by the rms over all dims, so each half is normalised by
the joint rms instead of its own. A's stream is rescaled (embedding, o and down times c, the
final norm gain divided by c, which leaves A's own function unchanged) so that the two halves'
rms agree on average over a sample of both curricula, and each norm's gains are multiplied by
the mean ratio of the joint to the half's own rms at that norm over the sample, so a token
of typical proportions is normalised as before. Measured on the scene and word models: the
plan leaves the raw logits further from the exact sum, but the fine-tune recovers from it far
faster (0.82 vs 0.36 after 400 steps), so it is the default.
The optimizer starts fresh; step, stage and counters come from B. A shallower model first gets
blocks that compute nothing (grow.deepen, appended), so a 2-layer scene model joins a 4-layer
word model.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys

import torch

from .batching import Packer
from .corpus.curriculum import name_of
from .corpus.generate import example
from .grow import deepen, save
from .model import Config, DreamModel
from .tokenizer.bpe import Tokenizer


def _check(ca: Config, cb: Config) -> None:
    same = ("vocab", "rope_theta", "eps", "tied")
    bad = [k for k in same if getattr(ca, k) != getattr(cb, k)]
    if ca.head_dim != cb.head_dim:
        bad.append("head_dim")
    if ca.heads // ca.kv_heads != cb.heads // cb.kv_heads:
        bad.append("heads per KV head")  # repeat_interleave must map each half's heads to its own KV heads
    if bad or not ca.tied:
        raise SystemExit(f"cannot stitch: the models differ in {', '.join(bad) or 'tied embeddings'}")


def _block_diag(wa: torch.Tensor, wb: torch.Tensor) -> torch.Tensor:
    if wa.dim() == 1:
        return torch.cat([wa, wb])
    return torch.block_diag(wa, wb)


@torch.no_grad()
def stitch(sa: dict, sb: dict, c: float = 1.0, gains: dict | None = None) -> dict:
    """The stitched checkpoint; A's residual stream is scaled by c (its function unchanged).
    gains: norm name -> (factor for A's half, factor for B's half)."""
    sa, sb = (to_depth(st, max(sa["config"]["layers"], sb["config"]["layers"])) for st in (sa, sb))
    ca, cb = Config(**sa["config"]), Config(**sb["config"])
    _check(ca, cb)
    cfg = Config(
        **{
            **sb["config"],
            "dim": ca.dim + cb.dim,
            "heads": ca.heads + cb.heads,
            "kv_heads": ca.kv_heads + cb.kv_heads,
            "ffn": ca.ffn + cb.ffn,
        }
    )
    sd = {}
    for k, wb in sb["model"].items():
        wa = sa["model"][k]
        name = k.split(".")[-2]
        if name in ("embed", "o", "down"):
            wa = wa * c  # what A writes to its residual dims
        if k == "norm.weight":
            wa = wa / c  # the tied read-out sees A's stream at A's own scale again
        if gains and k.endswith("norm.weight"):
            fa, fb = gains[k[: -len(".weight")]]
            wa, wb = wa * fa, wb * fb
        sd[k] = torch.cat([wa, wb], dim=1) if name == "embed" else _block_diag(wa, wb)
    return {**sb, "model": sd, "opt": None, "probes": None, "config": cfg.to_dict()}


@torch.no_grad()
def stream_rms(model: DreamModel, batch: dict) -> dict:
    """norm name -> log-rms of the residual stream at that norm's input, per real token."""
    logs = {}
    real = batch["seg"] >= 0

    def hook(name):
        return lambda m, inp, out: logs.__setitem__(
            name, inp[0].pow(2).mean(-1).clamp_min(1e-12).sqrt().log()[real]
        )

    hooks = [m.register_forward_hook(hook(n)) for n, m in model.named_modules() if n.endswith("norm")]
    model.hidden(batch["ids"], batch["pos"], batch["seg"])
    for h in hooks:
        h.remove()
    return logs


def plan(ra: dict, rb: dict, dim_a: int, dim_b: int) -> tuple[float, dict]:
    """A's scale c and every norm's gain factors, from per-token log-rms of both models."""
    log_c = torch.stack([(rb[n] - ra[n]).mean() for n in ra]).mean().item()
    gains = {}
    for n in ra:
        la, lb = ra[n] + log_c, rb[n]
        joint = 0.5 * torch.log((dim_a * torch.exp(2 * la) + dim_b * torch.exp(2 * lb)) / (dim_a + dim_b))
        gains[n] = (math.exp((joint - la).mean().item()), math.exp((joint - lb).mean().item()))
    return math.exp(log_c), gains


def to_depth(st: dict, layers: int) -> dict:
    while st["config"]["layers"] < layers:
        st = deepen(st)
    return st


def load(path: str) -> dict:
    if not os.path.isfile(path):
        raise SystemExit(f"stitch: no checkpoint at {path}")
    return torch.load(path, map_location="cpu", weights_only=False)


def as_model(st: dict) -> DreamModel:
    m = DreamModel(Config(**st["config"]))
    m.load_state_dict(st["model"])
    return m.eval()


def branch(st: dict, path: str) -> dict:
    """What the model card says about one half: where it came from and what training it had."""
    keep = ("step", "stage", "elapsed_s")
    # copies: the stitched checkpoint shares B's counters, which the joint fine-tune advances
    args = st.get("args") or {}
    how = {k: args.get(k) for k in ("threads", "bf16", "threads_later")}  # its last invocation's settings
    return {
        "path": path,
        "config": dict(st["config"]),
        "counters": dict(st.get("counters") or {}),
        "how": how,
        **{k: st.get(k) for k in keep},
    }


def sample_batch(tok_path: str, stages: list[str], n: int = 16) -> dict:
    exs = [example(12345, s, i) for s in stages for i in range(n)]
    return Packer(Tokenizer.load(tok_path)).batch(exs, random.Random(0))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--a", required=True, help="checkpoint whose dims come first")
    ap.add_argument(
        "--b", required=True, help="checkpoint whose dims come second (and whose step, stage, args carry on)"
    )
    ap.add_argument("--out", required=True)
    ap.add_argument(
        "--stages",
        default="mixed-clauses,letter-first",
        help="corpus stages of the sample that sets A's scale",
    )
    ap.add_argument("--plain", action="store_true", help="no rms plan: A and B as they are")
    a = ap.parse_args(argv)
    torch.set_num_threads(1)
    sa, sb = load(a.a), load(a.b)
    parents = {"a": branch(sa, a.a), "b": branch(sb, a.b)}  # before depth padding
    depth = max(sa["config"]["layers"], sb["config"]["layers"])
    sa, sb = to_depth(sa, depth), to_depth(sb, depth)
    ma, mb = as_model(sa), as_model(sb)
    batch = sample_batch(sb["tokenizer"], [name_of(s) for s in a.stages.split(",")])
    ra, rb = stream_rms(ma, batch), stream_rms(mb, batch)
    c, gains = plan(ra, rb, ma.c.dim, mb.c.dim)
    for n in ra:
        print(
            f"{n:>18}: mean log rms A {ra[n].mean():6.2f} B {rb[n].mean():6.2f}; gains x{gains[n][0]:.3f} / x{gains[n][1]:.3f}"
        )
    st = stitch(sa, sb) if a.plain else stitch(sa, sb, c, gains)
    st["parents"] = parents
    return save(a.out, st, f"{'no rms plan' if a.plain else f'A scaled by {c:.3f}'}; stitched {st['config']}")


if __name__ == "__main__":
    sys.exit(main())
