#!/usr/bin/env python3
"""Write a random-weight GGUF v3 model with llama.cpp's key and tensor names.

  make_fixture.py --arch {dream,llada,qwen2,llama} --out F.gguf [--type T] [--tokenizer-json P]
                  [--hidden N --layers N --heads N --kv-heads N --ffn N --vocab N --ctx N
                   --seed N --tied --random-bytes]

Tensors are generated and written one at a time (in row chunks), so a 7B-shaped file needs
little memory. Norm weights and biases stay F32; 2-D weights use --type, whose block size
must divide every row length (256 for the K-quants). --type Q4_K_M mixes Q4_K with Q6_K for
attn_v, ffn_down and output like llama.cpp's preset. --random-bytes fills block-quantized
tensors with random (valid) quants instead of quantizing Gaussian values: much faster, for
benchmarks only.
"""

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gguf_py import gguf_file as gf  # noqa: E402
from gguf_py import quant, vocab  # noqa: E402

ARCHS = {
    # arch: (tokenizer family, q/k/v biases, bidirectional, shifted logits)
    "dream": ("qwen", True, True, True),
    "qwen2": ("qwen", True, False, False),
    "llada": ("llama", False, True, False),
    "llama": ("llama", False, False, False),
}
CHUNK = 1 << 22  # elements generated per step


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--arch", required=True, choices=sorted(ARCHS))
    p.add_argument("--out", required=True)
    p.add_argument("--type", default="F32", choices=sorted(quant.TYPES) + ["Q4_K_M"])
    p.add_argument("--tokenizer-json")
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--kv-heads", type=int, default=2)
    p.add_argument("--ffn", type=int, default=128)
    p.add_argument("--vocab", type=int)
    p.add_argument("--ctx", type=int, default=2048)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--rope-base", type=float, default=10000.0)
    p.add_argument("--eps", type=float, default=1e-6)
    p.add_argument("--tied", action="store_true", help="no output.weight: reuse token_embd")
    p.add_argument("--random-bytes", action="store_true")
    p.add_argument("--nan-tensor", help="fill this F32 tensor with NaN (tests of broken models)")
    a = p.parse_args(argv)
    if a.hidden % a.heads or a.heads % a.kv_heads:
        p.error("--hidden must be a multiple of --heads, and --heads of --kv-heads")
    if (a.hidden // a.heads) % 2:
        p.error("head dimension must be even (RoPE rotates pairs)")
    return a


def tensor_plan(a, n_vocab):
    """[(name, dims in ggml order, type, kind)] with kind in embd/linear/norm/bias."""
    hd = a.hidden // a.heads
    q_out, kv_out = a.heads * hd, a.kv_heads * hd
    _, biases, _, _ = ARCHS[a.arch]
    mixed = a.type == "Q4_K_M"
    base = "Q4_K" if mixed else a.type
    hi = "Q6_K" if mixed else a.type
    plan = [("token_embd.weight", [a.hidden, n_vocab], base, "embd")]
    for i in range(a.layers):
        b = f"blk.{i}."
        plan.append((b + "attn_norm.weight", [a.hidden], "F32", "norm"))
        plan.append((b + "attn_q.weight", [a.hidden, q_out], base, "linear"))
        plan.append((b + "attn_k.weight", [a.hidden, kv_out], base, "linear"))
        plan.append((b + "attn_v.weight", [a.hidden, kv_out], hi, "linear"))
        if biases:
            plan.append((b + "attn_q.bias", [q_out], "F32", "bias"))
            plan.append((b + "attn_k.bias", [kv_out], "F32", "bias"))
            plan.append((b + "attn_v.bias", [kv_out], "F32", "bias"))
        plan.append((b + "attn_output.weight", [q_out, a.hidden], base, "linear"))
        plan.append((b + "ffn_norm.weight", [a.hidden], "F32", "norm"))
        plan.append((b + "ffn_gate.weight", [a.hidden, a.ffn], base, "linear"))
        plan.append((b + "ffn_up.weight", [a.hidden, a.ffn], base, "linear"))
        plan.append((b + "ffn_down.weight", [a.ffn, a.hidden], hi, "linear"))
    plan.append(("output_norm.weight", [a.hidden], "F32", "norm"))
    if not a.tied:
        plan.append(("output.weight", [a.hidden, n_vocab], hi, "linear"))
    return plan


def metadata(w, a, n_vocab, tok):
    arch = a.arch
    family, _, bidirectional, shifted = ARCHS[arch]
    tokens, types, merges, roles = tok
    gf.add_decoder_header(
        w,
        arch,
        f"meadow random {arch} fixture",
        context=a.ctx,
        embedding=a.hidden,
        blocks=a.layers,
        ffn=a.ffn,
        heads=a.heads,
        kv_heads=a.kv_heads,
        rope_base=a.rope_base,
        head_dim=a.hidden // a.heads,
        eps=a.eps,
        vocab=n_vocab,
    )
    if bidirectional:
        w.add(f"{arch}.attention.causal", gf.BOOL, False)
        w.add("diffusion.shift_logits", gf.BOOL, shifted)
    w.add("tokenizer.ggml.model", gf.STRING, "gpt2")
    w.add("tokenizer.ggml.pre", gf.STRING, "qwen2" if family == "qwen" else "llama-bpe")
    w.add("tokenizer.ggml.tokens", gf.ARRAY, (gf.STRING, tokens))
    w.add("tokenizer.ggml.token_type", gf.ARRAY, (gf.I32, types))
    w.add("tokenizer.ggml.merges", gf.ARRAY, (gf.STRING, merges))
    for role in ("bos", "eos"):
        if role in roles:
            w.add(f"tokenizer.ggml.{role}_token_id", gf.U32, roles[role])
    if "eos" in roles:
        w.add("tokenizer.ggml.padding_token_id", gf.U32, roles["eos"])
    if bidirectional and "mask" in roles:
        w.add("tokenizer.ggml.mask_token_id", gf.U32, roles["mask"])
    w.add("tokenizer.ggml.add_bos_token", gf.BOOL, family == "llama")
    w.add("tokenizer.chat_template", gf.STRING, vocab.CHATML if family == "qwen" else vocab.LLAMA3)


def chunks(rng, dims, type_name, kind, random_bytes):
    """Yield the encoded bytes of one tensor, a few rows at a time."""
    cols = dims[0]
    rows = int(np.prod(dims[1:])) if len(dims) > 1 else 1
    std = {"embd": 1.0, "linear": 1.0 / np.sqrt(cols), "norm": 0.1, "bias": 0.1}[kind]
    step = max(1, CHUNK // cols)
    for r0 in range(0, rows, step):
        n = min(step, rows - r0) * cols
        if random_bytes and quant.TYPES[type_name][1] > 1:
            yield quant.random_blocks(type_name, n, rng, std)
            continue
        x = rng.standard_normal(n, dtype=np.float32) * np.float32(std)
        if kind == "norm":
            x += np.float32(1.0)
        yield quant.quantize(type_name, x)


def main(argv):
    a = parse_args(argv)
    family = ARCHS[a.arch][0]
    try:
        if a.tokenizer_json:
            tok = vocab.from_tokenizer_json(a.tokenizer_json, family, a.vocab)
        else:
            tok = vocab.synthetic(family, a.vocab or 512)
        n_vocab = len(tok[0])
        w = gf.Writer(a.out)
        metadata(w, a, n_vocab, tok)
        plan = tensor_plan(a, n_vocab)
        for name, dims, type_name, _ in plan:
            w.declare(name, dims, type_name)
    except ValueError as e:
        print(f"make_fixture: {e}", file=sys.stderr)
        return 2
    rng = np.random.default_rng(a.seed)
    w.begin()
    for name, dims, type_name, kind in plan:
        if name == a.nan_tensor and type_name == "F32":
            w.write(name, [np.full(int(np.prod(dims)), np.nan, np.float32).view(np.uint8)])
            continue
        w.write(name, chunks(rng, dims, type_name, kind, a.random_bytes))
    w.end()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
