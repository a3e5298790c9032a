"""Parity of the trainer (PyTorch) with the C++ runtime on an exported model (issue 4, item 6).

    MEADOW_CLI=build/meadow-mind python3 -m unittest tests/train/test_runtime_parity.py -v

Skips when no `meadow-mind` binary is found (MEADOW_CLI, else build/meadow-mind). Checks
(1) token ids of corpus prompts: train/nano/tokenizer == `meadow-mind tokenize`, and (2) logits of
a prefix + situation + slot sequence: PyTorch == `meadow-mind logits` cached and uncached,
within 1e-4 relative. A fresh model trained for a few steps is exported for the check.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import tempfile
import unittest

import numpy as np
import torch
import torch.nn.functional as F

from tests.train.helpers import ROOT
from train.nano.batching import Packer
from train.nano.corpus.generate import example
from train.nano.export_gguf import export
from train.nano.model import Config, DreamModel
from train.nano.tokenizer.bpe import Tokenizer

CLI = os.environ.get("MEADOW_CLI", os.path.join(ROOT, "build", "meadow-mind"))


def _has_commands() -> bool:
    """A built binary that knows `logits` and `tokenize` (an early skeleton build does not)."""
    if not os.path.exists(CLI):
        return False
    try:
        r = subprocess.run([CLI, "logits", "--help"], capture_output=True, text=True, timeout=30)
    except OSError:
        return False
    return r.returncode == 0 and "--prefix" in r.stdout


def _run(*args):
    return json.loads(subprocess.run([CLI, *args], check=True, capture_output=True, text=True).stdout)


@unittest.skipUnless(_has_commands(), f"no meadow-mind binary with `logits` at {CLI}")
class RuntimeParityTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        torch.manual_seed(1)
        torch.set_num_threads(1)
        cls.tok = Tokenizer.load(os.path.join(ROOT, "train", "nano", "tokenizer", "vocab.json"))
        c = Config(vocab=len(cls.tok), dim=32, layers=2, heads=4, kv_heads=2, ffn=64)
        cls.model = DreamModel(c)
        opt = torch.optim.AdamW(cls.model.parameters(), lr=3e-3)
        packer = Packer(cls.tok)
        for step in range(5):  # a few real training steps, as CI would do
            b = packer.batch([example(0, 0, step * 4 + i) for i in range(4)], random.Random(step))
            z = cls.model.head(cls.model.hidden(b["ids"], b["pos"], b["seg"])[b["t_batch"], b["t_pos"]])
            loss = F.cross_entropy(z, b["t_tok"])
            opt.zero_grad()
            loss.backward()
            opt.step()
        cls.tmp = tempfile.TemporaryDirectory()
        cls.path = os.path.join(cls.tmp.name, "parity.gguf")
        export(cls.model.state_dict(), c, cls.tok, cls.path)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_tokenizer_ids(self):
        texts = []
        for st in range(5):
            for i in range(6):
                ex = example(11, st, i)
                texts += [ex.prefix] + ex.suffixes[:2]
        texts += [
            "Pole pole POLE",
            "héllo wörld 世界 🙂",
            "  spaces\t\ttabs\n\n",
            "<|im_start|>user\nx<|im_end|><|mask|>",
        ]
        for t in texts:
            self.assertEqual(
                _run("tokenize", "--model", self.path, t, "--json")["ids"], self.tok.encode(t), t
            )

    def test_folded_tokenizer_ids(self):
        """A vocabulary trained folded (meadow.tokenizer.fold_case): the runtime folds as the trainer."""
        tok = Tokenizer(self.tok.merges, fold=True)
        path = os.path.join(self.tmp.name, "folded.gguf")
        export(self.model.state_dict(), self.model.c, tok, path)
        self.assertTrue(_run("model", "info", path, "--json")["tokenizer"]["fold_case"])
        self.assertFalse(_run("model", "info", self.path, "--json")["tokenizer"]["fold_case"])
        texts = [example(11, 13, i).prefix for i in range(3)] + [
            example(11, 13, i).suffixes[0] for i in range(3)
        ]
        texts += [
            "Pole pole POLE",
            "Pick B when Delirium ACTIVE. I go; AI ok, xY, Ab\u00e9C",
            "\u00dcn\u00efcode Stra\u00dfe",
            "<|im_start|>User\nRule: Part means C.<|im_end|>",
            "A\u030aB Ab\u030a",
            "\U0001f642Ab",
        ]
        for t in texts:
            self.assertEqual(_run("tokenize", "--model", path, t, "--json")["ids"], tok.encode(t), t)
        ids = _run("tokenize", "--model", path, "Pole pole POLE", "--json")["ids"]
        self.assertEqual(ids, self.tok.encode("pole pole pole"))  # one spelling for the three

    def test_logits_cached_and_uncached(self):
        ex = example(3, 4, 2)
        pre = self.tok.encode(ex.prefix)
        suf = self.tok.encode(ex.suffixes[0]) + [self.tok.mask] * 3
        ids = pre + suf
        P, T = len(pre), len(ids)
        seg = torch.tensor([[0] * P + [1] * len(suf)])
        with torch.no_grad():
            raw = self.model.head(self.model.hidden(torch.tensor([ids]), torch.arange(T)[None], seg))[
                0
            ].numpy()
        positions = [P, P + 1, T - 4, T - 3, T - 1]  # the CLI has no rows inside a cached prefix
        for extra in ([], ["--no-cache"]):
            out = _run(
                "logits",
                "--model",
                self.path,
                "--ids",
                ",".join(map(str, ids)),
                "--prefix",
                str(P),
                "--positions",
                ",".join(map(str, positions)),
                "--json",
                *extra,
            )
            got = np.array(out["logits"])
            # the CLI's row p predicts token p+1 = the raw output at p (Dream's shift is applied
            # when reading an answer: the token at p+1 is read from row p)
            want = raw[positions]
            self.assertLess(np.abs(got - want).max() / np.abs(want).max(), 1e-4, extra)


if __name__ == "__main__":
    unittest.main()
