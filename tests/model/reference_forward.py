#!/usr/bin/env python3
"""Independent NumPy reference forward for dream / llada / qwen2 / llama GGUF models.

Written plainly from the architecture equations, in float64, one sequence at a time, with
an explicit attention-mask matrix. Weights are read and dequantized by tools/gguf_py (its
own parser and numpy dequantizers, independent of the C++ runtime).

  reference_forward.py --model F.gguf --ids 1,2,3 [--positions 0,2] [--vocab-rows 5,9]
                       [--mask natural|prefix --prefix-len P]
prints {"logits": [[...] per position]} as JSON.
"""
import argparse
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
from gguf_py import Reader  # noqa: E402


def rmsnorm(x, g, eps):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * g


def rope(x, pos, base, neox):
    """x: [n, heads, d]; rotate pairs by angle pos * base^(-2i/d)."""
    d = x.shape[-1]
    half = d // 2
    inv_freq = base ** (-np.arange(half, dtype=np.float64) * 2.0 / d)
    ang = pos[:, None].astype(np.float64) * inv_freq[None, :]
    cos, sin = np.cos(ang)[:, None, :], np.sin(ang)[:, None, :]
    out = np.empty_like(x)
    if neox:  # pairs (i, i + d/2)
        a, b = x[..., :half], x[..., half:]
        out[..., :half] = a * cos - b * sin
        out[..., half:] = a * sin + b * cos
    else:  # pairs (2i, 2i + 1)
        a, b = x[..., 0::2], x[..., 1::2]
        out[..., 0::2] = a * cos - b * sin
        out[..., 1::2] = a * sin + b * cos
    return out


def silu(x):
    return x / (1.0 + np.exp(-x))


def mask_matrix(n, causal, mask, prefix_len):
    i = np.arange(n)[:, None]
    j = np.arange(n)[None, :]
    if causal:
        return j <= i
    if mask == "prefix" and prefix_len > 0:
        return (i >= prefix_len) | (j < prefix_len)
    return np.ones((n, n), dtype=bool)


def forward(r, ids, mask, prefix_len):
    m = r.meta
    arch = m["general.architecture"]
    if arch not in ("dream", "llada", "qwen2", "llama"):
        raise SystemExit(f"unsupported architecture {arch}")
    E = m[f"{arch}.embedding_length"]
    L = m[f"{arch}.block_count"]
    H = m[f"{arch}.attention.head_count"]
    Hkv = m.get(f"{arch}.attention.head_count_kv", H)
    D = m.get(f"{arch}.attention.key_length", E // H)
    base = float(m.get(f"{arch}.rope.freq_base", 10000.0))
    eps = float(m[f"{arch}.attention.layer_norm_rms_epsilon"])
    causal = bool(m.get(f"{arch}.attention.causal", arch in ("qwen2", "llama")))
    neox = arch in ("dream", "qwen2")
    W = lambda name: r.tensor(name).astype(np.float64)

    n = len(ids)
    pos = np.arange(n)
    allowed = mask_matrix(n, causal, mask, prefix_len)
    x = W("token_embd.weight")[np.array(ids)]
    for layer in range(L):
        p = f"blk.{layer}."
        h = rmsnorm(x, W(p + "attn_norm.weight"), eps)
        q = h @ W(p + "attn_q.weight").T
        k = h @ W(p + "attn_k.weight").T
        v = h @ W(p + "attn_v.weight").T
        if p + "attn_q.bias" in r.tensors:
            q = q + W(p + "attn_q.bias")
            k = k + W(p + "attn_k.bias")
            v = v + W(p + "attn_v.bias")
        q = rope(q.reshape(n, H, D), pos, base, neox)
        k = rope(k.reshape(n, Hkv, D), pos, base, neox)
        v = v.reshape(n, Hkv, D)
        att = np.empty((n, H, D))
        group = H // Hkv
        for hh in range(H):
            kv = hh // group
            s = q[:, hh, :] @ k[:, kv, :].T / np.sqrt(D)
            s = np.where(allowed, s, -np.inf)
            s = s - s.max(axis=1, keepdims=True)
            pr = np.exp(s)
            pr /= pr.sum(axis=1, keepdims=True)
            att[:, hh, :] = pr @ v[:, kv, :]
        x = x + att.reshape(n, H * D) @ W(p + "attn_output.weight").T
        h = rmsnorm(x, W(p + "ffn_norm.weight"), eps)
        g = h @ W(p + "ffn_gate.weight").T
        u = h @ W(p + "ffn_up.weight").T
        x = x + (silu(g) * u) @ W(p + "ffn_down.weight").T
    x = rmsnorm(x, W("output_norm.weight"), eps)
    out = W("output.weight") if "output.weight" in r.tensors else W("token_embd.weight")
    return x @ out.T


def ints(s):
    return [int(v) for v in s.split(",") if v != ""]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--ids", required=True, type=ints)
    ap.add_argument("--positions", type=ints)
    ap.add_argument("--vocab-rows", type=ints)
    ap.add_argument("--mask", choices=["natural", "prefix"], default="natural")
    ap.add_argument("--prefix-len", type=int, default=0)
    a = ap.parse_args()
    logits = forward(Reader(a.model), a.ids, a.mask, a.prefix_len)
    rows = logits[a.positions] if a.positions else logits
    if a.vocab_rows:
        rows = rows[:, a.vocab_rows]
    json.dump({"logits": rows.tolist()}, sys.stdout)


if __name__ == "__main__":
    main()
