"""Tests of widening and deepening (train/nano/grow.py).

python3 -m unittest tests/train/test_grow.py -v
"""

from __future__ import annotations

import os
import random
import tempfile
import unittest

import torch

from tests.train.helpers import VOCAB
from train.nano.corpus.generate import example
from train.nano.tokenizer.bpe import Tokenizer


class GrowTest(unittest.TestCase):
    """A grown checkpoint keeps what the old model computed, so a learned circuit survives."""

    def _logp(self, st, b):
        from train.nano.model import Config, DreamModel

        m = DreamModel(Config(**st["config"]))
        m.load_state_dict(st["model"])
        m.double()  # so "exact" means exact, not float32 rounding of large logits
        with torch.no_grad():
            return m.head(m.hidden(b["ids"], b["pos"], b["seg"])[b["t_batch"], b["t_pos"]]).log_softmax(-1)

    def test_widen_and_deepen(self):
        from train.nano import grow
        from train.nano.batching import Packer
        from train.nano.model import Config, DreamModel

        torch.manual_seed(1)
        cfg = Config(vocab=len(Tokenizer.load(VOCAB)), dim=32, layers=2, heads=2, kv_heads=1, ffn=96)
        m = DreamModel(cfg)
        for p in m.parameters():  # away from the init, so the check is not about init scales
            p.data += 0.05 * torch.randn_like(p)
        st = {"model": m.state_dict(), "config": cfg.to_dict(), "seed": 3, "step": 7}
        b = Packer(Tokenizer.load(VOCAB)).batch([example(0, 13, i) for i in range(4)], random.Random(0))
        ref = self._logp(st, b)
        exact = grow.widen(st, 2, new_scale=0.0)  # the old weights are copied and renormalised right
        # (not 0: RMSNorm's eps does not scale with the width)
        self.assertLess((self._logp(exact, b) - ref).abs().max().item(), 1e-3)
        wide = grow.widen(st, 2)
        self.assertEqual(
            (
                wide["config"]["dim"],
                wide["config"]["heads"],
                wide["config"]["kv_heads"],
                wide["config"]["ffn"],
            ),
            (64, 4, 2, 192),
        )
        self.assertEqual(wide["step"], 7)
        got = self._logp(wide, b)
        self.assertLess((got - ref).abs().mean().item(), 0.1)
        with tempfile.TemporaryDirectory() as d:
            src, out = os.path.join(d, "a.pt"), os.path.join(d, "b.pt")
            torch.save(st, src)
            self.assertEqual(grow.main(["--ckpt", src, "--out", out]), 0)
            deep = torch.load(out)
        self.assertEqual(deep["config"]["layers"], 3)
        self.assertLess((self._logp(deep, b) - ref).abs().max().item(), 1e-5)
        self.assertLess((self._logp(grow.deepen(st, 0), b) - ref).abs().max().item(), 1e-5)  # in front too
        with self.assertRaises(SystemExit) as e:
            grow.deepen(st, 3)
        self.assertIn("0..2", str(e.exception))


if __name__ == "__main__":
    unittest.main()
