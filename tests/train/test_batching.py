"""Tests of packing (train/nano/batching.py).

python3 -m unittest tests/train/test_batching.py -v
"""

from __future__ import annotations

import random
import unittest

from tests.train.helpers import VOCAB
from train.nano.corpus.generate import example
from train.nano.tokenizer.bpe import Tokenizer


class PackingTest(unittest.TestCase):
    def test_slot_targets_and_reveal(self):
        from train.nano.batching import Packer

        tok = Tokenizer.load(VOCAB)
        ex = example(2, 0, 4)
        b = Packer(tok).batch([ex], random.Random(0))
        ids = b["ids"][0]
        # every letter target sits on a <|mask|> and is read one row earlier (Dream shift)
        for r, ans in zip(b["letter_rows"].tolist(), b["letter_ans"].tolist()):
            p = int(b["t_pos"][r]) + 1
            self.assertEqual(int(ids[p]), tok.mask)
            self.assertEqual(int(b["t_tok"][r]), tok.encode("ABCDEF"[ans])[0])
            self.assertEqual(int(b["seg"][0, p]), int(b["seg"][0, p - 1]))
        self.assertEqual(len(b["letter_rows"]), len(ex.suffixes))
        # reveal: the answer is shown, so no letter is a target
        b = Packer(tok, reveal=1.0).batch([ex], random.Random(0))
        self.assertEqual(len(b["letter_rows"]), 0)


if __name__ == "__main__":
    unittest.main()
