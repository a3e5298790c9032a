"""Tests of the held-out filter (train/common/heldout/filter.py).

python3 -m unittest tests/train/test_heldout.py -v
"""

from __future__ import annotations

import unittest

from train.common.heldout.filter import HeldOut
from train.common.heldout.filter import default as default_heldout
from train.nano.corpus.curriculum import STAGES
from train.nano.corpus.generate import example


class HeldOutTest(unittest.TestCase):
    def test_filter_flags_overlap(self):
        h = HeldOut(
            ["push in the same direction the car is moving, to pump energy like a swing", "go left now"]
        )
        self.assertIsNotNone(h.find("then Push in the SAME direction the car is here"))  # a 6-gram
        self.assertIsNotNone(h.find("you should go left now."))  # short sentence
        self.assertIsNone(h.find("push in the same way the car is moving"))

    def test_sample_is_clean(self):
        h = default_heldout()
        self.assertGreater(len(h.sentences), 0)
        for st in STAGES:
            for i in range(200):
                self.assertIsNone(h.find(example(7, st, i).text()))


if __name__ == "__main__":
    unittest.main()
