"""Export a training checkpoint as a GGUF v3 file of llama.cpp's `dream` architecture.

    python3 -m train.nano.export_gguf --ckpt train/runs/NAME/ckpt.pt --out models/meadow-nano.gguf [--type F32|F16|Q8_0]

Uses the project's GGUF writer (tools/gguf_py, shared with tools/make_fixture.py) with
llama.cpp's key and tensor names: dream.* hyper-parameters, diffusion.shift_logits = true,
tokenizer.ggml.* (gpt2 model, qwen2 pre-tokenizer, tokens, token_type, merges, special ids
including tokenizer.ggml.mask_token_id) and a ChatML chat template; a model trained on
case-folded text (tokenizer "fold": true) adds meadow.tokenizer.fold_case = true, which our
runtime applies before BPE (other runtimes ignore the key); meadow.prompt.system / .prefix /
.option / .suffix hold the prompt contract it was trained on (train/common/prompt.py), which the
runtime reads in place of its built-in copy. Linear weights are
stored as PyTorch keeps them ([out, in] row-major = ggml dims [in, out]); norms and biases
stay F32 whatever --type says. A tied model writes no output.weight (the runtime reuses
token_embd.weight).
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np
import torch

from tools.gguf_py import gguf_file as gf
from tools.gguf_py import vocab as gv
from train.common import prompt

from .model import Config
from .tokenizer.bpe import Tokenizer

HERE = os.path.dirname(os.path.abspath(__file__))

ARCH = "dream"


def tensors(state: dict, c: Config):
    """[(gguf name, float32 array in PyTorch layout, keep-F32?)] in file order."""

    def g(k):
        return state[k].detach().to(torch.float32).cpu().numpy()

    out = [("token_embd.weight", g("embed.weight"), False)]
    for i in range(c.layers):
        p, b = f"blocks.{i}.", f"blk.{i}."
        out += [
            (b + "attn_norm.weight", g(p + "attn_norm.weight"), True),
            (b + "attn_q.weight", g(p + "q.weight"), False),
            (b + "attn_k.weight", g(p + "k.weight"), False),
            (b + "attn_v.weight", g(p + "v.weight"), False),
            (b + "attn_q.bias", g(p + "q.bias"), True),
            (b + "attn_k.bias", g(p + "k.bias"), True),
            (b + "attn_v.bias", g(p + "v.bias"), True),
            (b + "attn_output.weight", g(p + "o.weight"), False),
            (b + "ffn_norm.weight", g(p + "ffn_norm.weight"), True),
            (b + "ffn_gate.weight", g(p + "gate.weight"), False),
            (b + "ffn_up.weight", g(p + "up.weight"), False),
            (b + "ffn_down.weight", g(p + "down.weight"), False),
        ]
    out.append(("output_norm.weight", g("norm.weight"), True))
    if not c.tied:
        out.append(("output.weight", g("out.weight"), False))
    return out


def export(
    state: dict, c: Config, tok: Tokenizer, path: str, wtype: str = "F32", name: str = "meadow-nano"
) -> None:
    w = gf.Writer(path)
    gf.add_decoder_header(
        w,
        ARCH,
        name,
        context=c.context,
        embedding=c.dim,
        blocks=c.layers,
        ffn=c.ffn,
        heads=c.heads,
        kv_heads=c.kv_heads,
        rope_base=c.rope_theta,
        head_dim=c.head_dim,
        eps=c.eps,
        vocab=len(tok),
    )
    w.add(f"{ARCH}.attention.causal", gf.BOOL, False)
    w.add("diffusion.shift_logits", gf.BOOL, True)
    w.add("tokenizer.ggml.model", gf.STRING, "gpt2")
    w.add("tokenizer.ggml.pre", gf.STRING, "qwen2")
    w.add("tokenizer.ggml.tokens", gf.ARRAY, (gf.STRING, tok.tokens))
    w.add("tokenizer.ggml.token_type", gf.ARRAY, (gf.I32, tok.types))
    w.add("tokenizer.ggml.merges", gf.ARRAY, (gf.STRING, [f"{a} {b}" for a, b in tok.merges]))
    w.add("tokenizer.ggml.bos_token_id", gf.U32, tok.eot)
    w.add("tokenizer.ggml.eos_token_id", gf.U32, tok.im_end)
    w.add("tokenizer.ggml.padding_token_id", gf.U32, tok.eot)
    w.add("tokenizer.ggml.mask_token_id", gf.U32, tok.mask)
    w.add("tokenizer.ggml.add_bos_token", gf.BOOL, False)
    w.add("tokenizer.chat_template", gf.STRING, gv.CHATML)
    if tok.fold:  # the runtime folds case before BPE as the trainer did (tokenizer/bpe.py)
        w.add("meadow.tokenizer.fold_case", gf.BOOL, True)
    for key, value in prompt.gguf_metadata().items():  # the prompt contract the model was trained on
        w.add(key, gf.STRING, value)
    plan = tensors(state, c)
    for tname, arr, keep in plan:
        w.declare(tname, list(arr.shape[::-1]), "F32" if keep else wtype)
    w.begin()
    for tname, arr, keep in plan:
        from tools.gguf_py import quant

        w.write(tname, [quant.quantize("F32" if keep else wtype, arr.reshape(-1))])
    w.end()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ckpt", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--type", default="F32", choices=("F32", "F16", "Q8_0"))
    ap.add_argument("--tokenizer", help="vocab.json (default: the one the checkpoint was trained with)")
    a = ap.parse_args(argv)
    st = torch.load(a.ckpt, map_location="cpu")
    c = Config(**st["config"])
    tok = Tokenizer.load(a.tokenizer or st["tokenizer"])
    assert len(tok) == c.vocab, (len(tok), c.vocab)
    export(st["model"], c, tok, a.out, a.type)
    n = sum(int(np.prod(v.shape)) for v in st["model"].values())
    print(f"wrote {a.out}: {os.path.getsize(a.out)} bytes, {n} params, {a.type}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
