"""Tests of the GGUF export (train/nano/export_gguf.py), checked with an independent NumPy forward written from
the `dream` equations (reading the exported file back), including the prefix-cache semantics: a
packed row of several situations gives the same logits as each situation run on its own.

    python3 -m unittest tests/train/test_export_gguf.py -v
"""

from __future__ import annotations

import os
import random
import tempfile
import unittest

import numpy as np
import torch

from tests.train.helpers import VOCAB
from train.nano.corpus.generate import example
from train.nano.tokenizer.bpe import Tokenizer


def _np_forward(r, ids, pos, seg):
    """Plain NumPy dream forward from the GGUF file; returns shifted logits [T, V]."""
    m = r.meta
    L = m["dream.block_count"]
    H, KV = m["dream.attention.head_count"], m["dream.attention.head_count_kv"]
    eps, theta = m["dream.attention.layer_norm_rms_epsilon"], m["dream.rope.freq_base"]
    t = r.tensor
    x = t("token_embd.weight")[ids]
    T, D = x.shape
    hd = D // H
    ok = np.array([[seg[j] == 0 or seg[j] == seg[i] for j in range(T)] for i in range(T)])

    def norm(v, w):
        return v / np.sqrt((v * v).mean(-1, keepdims=True) + eps) * w

    def rope(v):  # v [T, heads, hd], NeoX halves
        inv = theta ** (-np.arange(0, hd // 2) * 2.0 / hd)
        a = np.asarray(pos)[:, None, None] * inv
        v1, v2 = v[..., : hd // 2], v[..., hd // 2 :]
        return np.concatenate([v1 * np.cos(a) - v2 * np.sin(a), v2 * np.cos(a) + v1 * np.sin(a)], -1)

    for i in range(L):
        b = f"blk.{i}."
        h = norm(x, t(b + "attn_norm.weight"))
        q = (h @ t(b + "attn_q.weight").T + t(b + "attn_q.bias")).reshape(T, H, hd)
        k = (h @ t(b + "attn_k.weight").T + t(b + "attn_k.bias")).reshape(T, KV, hd)
        v = (h @ t(b + "attn_v.weight").T + t(b + "attn_v.bias")).reshape(T, KV, hd)
        q, k = rope(q), rope(k)
        y = np.zeros((T, H, hd))
        for hh in range(H):
            kh = hh // (H // KV)
            s = q[:, hh] @ k[:, kh].T / np.sqrt(hd)
            s = np.where(ok, s, -np.inf)
            p = np.exp(s - s.max(-1, keepdims=True))
            p /= p.sum(-1, keepdims=True)
            y[:, hh] = p @ v[:, kh]
        x = x + y.reshape(T, D) @ t(b + "attn_output.weight").T
        h = norm(x, t(b + "ffn_norm.weight"))
        g = h @ t(b + "ffn_gate.weight").T
        x = x + ((g / (1 + np.exp(-g))) * (h @ t(b + "ffn_up.weight").T)) @ t(b + "ffn_down.weight").T
    x = norm(x, t("output_norm.weight"))
    w = t("output.weight") if "output.weight" in r.tensors else t("token_embd.weight")
    z = x @ w.T
    return np.concatenate([z[:1], z[:-1]], 0)


class ExportTest(unittest.TestCase):
    def test_gguf_matches_torch_and_packing_equals_cache(self):
        from tools.gguf_py import gguf_file as gf
        from train.nano.batching import Packer
        from train.nano.export_gguf import export
        from train.nano.model import Config, DreamModel

        tok = Tokenizer.load(VOCAB)
        torch.manual_seed(0)
        for tied in (True, False):
            c = Config(vocab=len(tok), dim=32, layers=2, heads=4, kv_heads=2, ffn=64, tied=tied)
            m = DreamModel(c)
            with torch.no_grad():  # non-trivial norms and biases
                for n, p in m.named_parameters():
                    if "norm" in n or "bias" in n:
                        p.add_(torch.randn_like(p) * 0.3)
            ex = example(5, 4, 3)
            b = Packer(tok).batch([ex], random.Random(0))
            ids, pos, seg = b["ids"], b["pos"], b["seg"]
            with torch.no_grad():
                zt = m.logits(ids, pos, seg)[0].numpy()
            with tempfile.TemporaryDirectory() as d:
                path = os.path.join(d, "m.gguf")
                export(m.state_dict(), c, tok, path)
                r = gf.Reader(path)
                self.assertEqual(r.meta["general.architecture"], "dream")
                self.assertEqual(r.meta["tokenizer.ggml.mask_token_id"], tok.mask)
                self.assertTrue(r.meta["diffusion.shift_logits"])
                self.assertEqual("output.weight" in r.tensors, not tied)
                zn = _np_forward(r, ids[0].numpy(), pos[0].numpy(), seg[0].numpy())
            self.assertLess(np.abs(zn - zt).max() / (np.abs(zn).max() + 1e-9), 1e-4)
            # packed row == prefix + one situation alone, for every situation (prefix-cache
            # semantics). Compared unshifted: a packed row's shift crosses situation boundaries,
            # which is why no training target sits on a situation's first token.
            with torch.no_grad():
                zu = m.head(m.hidden(ids, pos, seg))[0].numpy()
            s_ = seg[0]
            P = int((s_ == 0).sum())
            for s in range(1, int(s_.max()) + 1):
                keep = (s_ == 0) | (s_ == s)
                with torch.no_grad():
                    alone = m.head(m.hidden(ids[:, keep], pos[:, keep], seg[:, keep]))[0].numpy()
                np.testing.assert_allclose(alone, zu[keep.numpy()], rtol=1e-4, atol=1e-5)
                self.assertEqual(int(pos[0, keep][P]), P)


if __name__ == "__main__":
    unittest.main()
