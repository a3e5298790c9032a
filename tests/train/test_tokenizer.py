"""Tests of the tokenizer (train/nano/tokenizer/).

python3 -m unittest tests/train/test_tokenizer.py -v
"""

from __future__ import annotations

import os
import tempfile
import unittest

import torch

from tests.train.helpers import ROOT, VOCAB, tiny_run
from train.nano.tokenizer.bpe import Tokenizer


class TokenizerTest(unittest.TestCase):
    def test_round_trip_any_utf8(self):
        tok = Tokenizer.load(VOCAB)
        for s in [
            "héllo wörld 世界 🙂‍🙂",
            "<|im_start|>user\nRule: x<|im_end|>",
            "\x00\x7f tabs\t\n\n  ",
            "Pole pole POLE",
        ]:
            self.assertEqual(tok.decode(tok.encode(s)), s)
        self.assertEqual(len(tok.tokens[:256]), 256)
        self.assertEqual(tok.encode("<|mask|>"), [tok.mask])
        for L in "ABCDEF":
            self.assertEqual(len(tok.encode(L)), 1)

    def test_folded_tokenizer(self):
        from train.nano.tokenizer.bpe import fold_case

        self.assertEqual(
            fold_case("Rule: Part means C. I go, AI ok, xY, B2, Ab\u00e9C"),
            "rule: part means C. I go, ai ok, xy, B2, ab\u00e9C",
        )
        tok = Tokenizer(Tokenizer.load(VOCAB).merges, fold=True)
        with tempfile.TemporaryDirectory() as d:
            tok.save(os.path.join(d, "v.json"))
            back = Tokenizer.load(os.path.join(d, "v.json"))
        self.assertTrue(back.fold)
        self.assertFalse(Tokenizer.load(VOCAB).fold)
        self.assertEqual(back.encode("Pole POLE pole"), back.encode("pole pole pole"))
        self.assertEqual(back.decode(back.encode("<|im_start|>User\nPick B.")), "<|im_start|>user\npick B.")
        for L in "ABCDEF":
            self.assertEqual(back.encode(L), Tokenizer.load(VOCAB).encode(L))
        # a run started folded resumes folded without --tokenizer (its checkpoint names it)
        import contextlib
        import io

        from train.nano import train

        with tempfile.TemporaryDirectory() as d:
            folded_path = os.path.join(ROOT, "train", "nano", "tokenizer", "vocab-folded.json")
            args = tiny_run(d, stage=13, steps=2)
            with contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(train.main(args + ["--tokenizer", folded_path]), 0)
            args[-1] = "4"
            with contextlib.redirect_stdout(io.StringIO()) as out:
                self.assertEqual(train.main(args), 0)
            self.assertIn("(case folded)", out.getvalue())
            self.assertEqual(torch.load(os.path.join(d, "ckpt.pt"))["tokenizer"], folded_path)
        # the committed folded vocabulary is the plain one with the fold on
        folded = Tokenizer.load(os.path.join(ROOT, "train", "nano", "tokenizer", "vocab-folded.json"))
        self.assertTrue(folded.fold)
        self.assertEqual(folded.merges, Tokenizer.load(VOCAB).merges)


if __name__ == "__main__":
    unittest.main()
