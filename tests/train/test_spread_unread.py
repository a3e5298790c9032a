"""Tests of spreading the unread tokens' embeddings (train/nano/spread_unread.py).

python3 -m unittest tests/train/test_spread_unread.py -v
"""

from __future__ import annotations

import os
import tempfile
import unittest

import torch

from tests.train.helpers import QUICK_EVAL, tiny_run
from train.nano.tokenizer.bpe import Tokenizer


class SpreadUnreadTest(unittest.TestCase):
    """spread_unread.py: the embeddings of tokens no training text holds take the read tokens'
    mean and spread; every other weight, and every read token, stays as it was."""

    def test_spread_math(self):
        from train.nano.spread_unread import spread

        g = torch.Generator().manual_seed(0)
        e = torch.randn(40, 8, generator=g)
        e[20:] = e[20:] * 0.1 + 3.0  # a collapsed cluster far from the rest
        out = spread(e, list(range(20, 40)), list(range(20)))
        self.assertTrue(torch.equal(out[:20], e[:20]))
        self.assertTrue(torch.allclose(out[20:].mean(0), e[:20].mean(0), atol=1e-5))
        spread_of = lambda x: (x - x.mean(0)).norm(dim=1).mean()  # noqa: E731
        self.assertAlmostEqual(float(spread_of(out[20:])), float(spread_of(e[:20])), places=4)
        # relative directions inside the moved set are kept (an affine map of it)
        c_in = torch.corrcoef(e[20:] - e[20:].mean(0))
        c_out = torch.corrcoef(out[20:] - out[20:].mean(0))
        self.assertTrue(torch.allclose(c_in, c_out, atol=1e-4))

    def test_checkpoint_in_and_out(self):
        import contextlib
        import io

        from train.nano import spread_unread, train

        with tempfile.TemporaryDirectory() as d:
            args = tiny_run(f"{d}/r", stage=16, steps=2)
            with contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(train.main(args), 0)
                self.assertEqual(
                    spread_unread.main(
                        ["--ckpt", f"{d}/r/ckpt.pt", "--out", f"{d}/s/ckpt.pt", "--per-stage", "30"]
                    ),
                    0,
                )
            a, b = torch.load(f"{d}/r/ckpt.pt"), torch.load(f"{d}/s/ckpt.pt")
            tok = Tokenizer.load(a["tokenizer"])
            counts = spread_unread.read_counts(tok, [16], 30)
            ea, eb = a["model"]["embed.weight"], b["model"]["embed.weight"]
            moved = [t for t in range(len(tok)) if not torch.equal(ea[t], eb[t])]
            self.assertEqual(len(moved), b["spread"]["unread"])
            self.assertGreater(len(moved), 100)  # stage 16 alone reads few of the 4,096 tokens
            self.assertTrue(all(counts[t] == 0 and 256 <= t < tok.mask - 3 for t in moved))
            self.assertTrue(
                all(torch.equal(v, b["model"][k]) for k, v in a["model"].items() if k != "embed.weight")
            )
            self.assertIsNone(b["opt"])
            # bad input: exit 2 with the reason, never a second spread of a spread model
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                self.assertEqual(spread_unread.main(["--ckpt", f"{d}/s/ckpt.pt", "--out", f"{d}/t.pt"]), 2)
                self.assertEqual(spread_unread.main(["--ckpt", f"{d}/none.pt", "--out", f"{d}/t.pt"]), 2)
                self.assertEqual(
                    spread_unread.main(
                        ["--ckpt", f"{d}/r/ckpt.pt", "--out", f"{d}/t.pt", "--per-stage", "0"]
                    ),
                    2,
                )
                with open(f"{d}/cut.pt", "wb") as f:  # a truncated checkpoint
                    f.write(open(f"{d}/r/ckpt.pt", "rb").read()[:1000])
                self.assertEqual(spread_unread.main(["--ckpt", f"{d}/cut.pt", "--out", f"{d}/t.pt"]), 2)
            self.assertIn("already spread", err.getvalue())
            self.assertIn("cannot read", err.getvalue())
            self.assertFalse(os.path.exists(f"{d}/t.pt"))
            self.assertEqual((b["spread"]["step"], b["spread"]["elapsed_s"]), (2, a["elapsed_s"]))
            # training on after the spread (the polish) keeps its record: the card tells the
            # polish apart, and a second spread is still refused
            with contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(
                    train.main(["--run", f"{d}/s", "--steps", "3", *QUICK_EVAL]),
                    0,
                )
            c = torch.load(f"{d}/s/ckpt.pt")
            self.assertEqual((c["step"], c["spread"]), (3, b["spread"]))
            with contextlib.redirect_stderr(io.StringIO()) as err2:
                self.assertEqual(spread_unread.main(["--ckpt", f"{d}/s/ckpt.pt", "--out", f"{d}/t.pt"]), 2)
            self.assertIn("already spread", err2.getvalue())


if __name__ == "__main__":
    unittest.main()
