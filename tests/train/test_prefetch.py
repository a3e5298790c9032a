"""train/prefetch.py: the batches built in the worker process are the ones the loop would build,
a promotion drops the prefetched batch, a worker's error reaches the trainer, and a run trains
to the same weights with and without --prefetch."""
from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "train"))

import torch  # noqa: E402

import train  # noqa: E402
from batching import Packer  # noqa: E402
from prefetch import Prefetcher  # noqa: E402
from tokenizer.bpe import Tokenizer  # noqa: E402

VOCAB = os.path.join(ROOT, "train", "tokenizer", "vocab.json")
SMALL = ["--dim", "16", "--heads", "2", "--kv-heads", "1", "--ffn", "32", "--batch", "3", "--eval-every", "3",
         "--eval-tables", "2", "--stage", "16", "--max-stage", "17", "--promote", "0", "--mix-prev", "0.5"]


def same_batch(test: unittest.TestCase, x: dict, y: dict) -> None:
    test.assertEqual(x.keys(), y.keys())
    for k in x:
        if isinstance(x[k], torch.Tensor):
            test.assertTrue(torch.equal(x[k], y[k]), k)
        else:
            test.assertEqual(x[k], y[k], k)


def fail_after_first(step: int, stage: int, counters: dict):
    if step > 0:
        raise ValueError("no corpus here")
    return {"step": step}, counters


class PrefetchTest(unittest.TestCase):
    def test_same_batches_and_a_promotion(self):
        a = train.parse(["--run", "x"] + SMALL)
        packer = Packer(Tokenizer.load(VOCAB))

        def make(step: int, stage: int, counters: dict):
            return train.make_batch(a, packer, step, stage, counters)

        mine, theirs = {}, {}
        with Prefetcher(make) as pf:
            for step in range(6):
                stage = 16 if step < 3 else 17  # promoted before step 3: that prefetch is dropped
                b1, theirs = pf.get(step, stage, theirs)
                b2, mine = make(step, stage, mine)
                same_batch(self, b1, b2)
                self.assertEqual(theirs, mine)
            self.assertEqual((pf.hits, pf.misses), (4, 2))  # steps 0 and 3 built in this process
        self.assertGreater(mine.get("16", 0), 0)
        self.assertGreater(mine.get("17", 0), 0)

    def test_worker_error_reaches_the_trainer(self):
        with Prefetcher(fail_after_first) as pf:
            self.assertEqual(pf.get(0, 16, {})[0], {"step": 0})
            with self.assertRaisesRegex(RuntimeError, "ValueError: no corpus here"):
                pf.get(1, 16, {})

    def test_training_with_and_without_prefetch_is_the_same(self):
        before = torch.get_num_threads()
        weights = []
        try:
            with tempfile.TemporaryDirectory() as d:
                for flag in ("--prefetch", "--no-prefetch"):
                    run = os.path.join(d, flag)
                    with contextlib.redirect_stdout(io.StringIO()):
                        self.assertEqual(train.main(["--run", run, "--steps", "7", flag] + SMALL), 0)
                    st = torch.load(os.path.join(run, "ckpt.pt"))
                    self.assertEqual(st["stage"], 17)  # promoted at step 3 (--promote 0)
                    weights.append((st["model"], st["counters"]))
        finally:
            torch.set_num_threads(before)
        (w1, c1), (w2, c2) = weights
        self.assertEqual(c1, c2)
        for k in w1:
            self.assertTrue(torch.equal(w1[k], w2[k]), k)


if __name__ == "__main__":
    unittest.main()
