"""Tests of the model's answer-slot fast path (train/nano/model.py).

python3 -m unittest tests/train/test_model.py -v
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


class TargetRowsTest(unittest.TestCase):
    """hidden(..., targets=) runs the last layer only at the answer slots: the same states and
    gradients as reading them out of the full pass (train.py's fast path)."""

    def test_targets_equal_the_full_pass(self):
        from train.nano.batching import Packer
        from train.nano.model import Config, DreamModel

        torch.manual_seed(3)
        tok = Tokenizer.load(VOCAB)
        m = DreamModel(Config(vocab=len(tok), dim=32, layers=3, heads=4, kv_heads=2, ffn=64)).double()
        # tables of different lengths, so rows hold different numbers of targets and padding
        b = Packer(tok).batch([example(5, s, i) for i, s in enumerate([13, 0, 25, 9, 61])], random.Random(2))
        tg = (b["t_batch"], b["t_pos"])
        full_taps, taps = [], []
        full = m.hidden(b["ids"], b["pos"], b["seg"], full_taps)[tg]
        fast = m.hidden(b["ids"], b["pos"], b["seg"], taps, targets=tg)
        self.assertEqual(fast.shape, full.shape)
        self.assertLess((fast - full).abs().max().item(), 1e-10)
        self.assertEqual(len(taps), 2)  # every layer but the last
        for a, c in zip(taps, full_taps):
            self.assertTrue(torch.equal(a, c))
        g_full = torch.autograd.grad(m.head(full).logsumexp(-1).sum(), list(m.parameters()))
        g_fast = torch.autograd.grad(m.head(fast).logsumexp(-1).sum(), list(m.parameters()))
        for a, c in zip(g_full, g_fast):
            self.assertLess((a - c).abs().max().item(), 1e-9)
        with self.assertRaises(ValueError):  # the last layer's attention is not computed
            m.hidden(b["ids"], b["pos"], b["seg"], None, [], -1, targets=tg)

    def test_bench_rejects_an_unknown_path(self):
        import contextlib
        import io

        from train.nano.diag import bench_speed

        err = io.StringIO()
        with (
            self.assertRaises(SystemExit) as cm,
            contextlib.redirect_stderr(err),
            contextlib.redirect_stdout(io.StringIO()),
        ):
            bench_speed.main(["--paths", "full,fast", "--steps", "1", "--sizes", "16x1", "--heap", "default"])
        self.assertEqual(cm.exception.code, 2)
        self.assertIn("--paths 'full,fast'", err.getvalue())

    def test_bench_times_the_batches_it_saved(self):
        """--save-batches then --load-batches (how a lent GPU without the word lists is timed): the
        loaded run reports the saved stage, batch size and corpus cost, and times every batch."""
        import contextlib
        import io

        from train.nano.diag import bench_speed

        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "b.pt")
            with contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(
                    bench_speed.main(
                        ["--stage", "0", "--batch", "2", "--steps", "1", "--save-batches", path]
                    ),
                    0,
                )
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                self.assertEqual(
                    bench_speed.main(
                        ["--load-batches", path, "--sizes", "16x1", "--paths", "targets", "--heap", "default"]
                    ),
                    0,
                )
        lines = out.getvalue().splitlines()
        self.assertTrue(lines[0].startswith("stage 0, batch 2 tables"), lines[0])
        self.assertIn("device cpu", lines[0])
        self.assertEqual(len(lines), 2)
        self.assertIn("d=  16 layers=1", lines[1])


if __name__ == "__main__":
    unittest.main()
