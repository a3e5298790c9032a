"""The prompt contract (models/prompt-contract.json, train/common/prompt.py) is the one definition
the trainers build prompts from, and every decision model's exporter writes it into the GGUF as
meadow.prompt.system / .prefix / .option / .suffix.

    python3 -m unittest tests/train/test_prompt.py -v
"""

from __future__ import annotations

import json
import os
import tempfile
import unittest

import numpy as np
import torch

from tests.train.helpers import ROOT
from tools.gguf_py import gguf_file as gf
from train.common import prompt
from train.nano.corpus import layout
from train.nano.corpus import templates as T

KEYS = [f"meadow.prompt.{k}" for k in ("system", "prefix", "option", "suffix")]
OPTIONS = [("A", "push left"), ("B", "push right")]


class ContractTest(unittest.TestCase):
    def test_the_file_is_the_definition(self):
        with open(os.path.join(ROOT, "models", "prompt-contract.json"), encoding="utf-8") as f:
            c = json.load(f)
        self.assertEqual(
            (prompt.SYSTEM, prompt.PREFIX, prompt.OPTION, prompt.SUFFIX), tuple(c[k] for k in prompt.KEYS)
        )
        self.assertEqual(list(prompt.gguf_metadata()), KEYS)

    def test_the_corpus_layout_is_the_contract(self):
        self.assertEqual(T.DEFAULT_SYSTEM, prompt.SYSTEM)
        self.assertEqual(T.SYSTEM_PROMPTS[0], prompt.SYSTEM)  # the others are augmentation
        opts = prompt.option_lines(OPTIONS)
        self.assertEqual(opts, "A) push left\nB) push right\n")
        self.assertEqual(
            layout.chat_prefix(T.DEFAULT_SYSTEM, "If X, choose A.", opts),
            "<|im_start|>system\n" + prompt.SYSTEM + "<|im_end|>\n<|im_start|>user\n"
            "Rule: If X, choose A.\nOptions:\nA) push left\nB) push right\n",
        )
        self.assertEqual(
            layout.chat_suffix("it rains"), "Situation: it rains<|im_end|>\n<|im_start|>assistant\n"
        )
        self.assertEqual(layout.compact_suffix("it rains"), "Situation: it rains\nAnswer:")

    def test_small_uses_the_contract(self):
        from train.small import prompt as small_prompt

        self.assertEqual(small_prompt.SYSTEM, prompt.SYSTEM)


class ExportTest(unittest.TestCase):
    def test_nano_export_writes_the_contract(self):
        from train.nano.export_gguf import export
        from train.nano.model import Config, DreamModel
        from train.nano.tokenizer.bpe import Tokenizer

        tok = Tokenizer.load(os.path.join(ROOT, "train", "nano", "tokenizer", "vocab.json"))
        cfg = Config(vocab=len(tok), dim=16, layers=1, heads=2, kv_heads=1, ffn=32)
        torch.manual_seed(0)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "m.gguf")
            export(DreamModel(cfg).state_dict(), cfg, tok, path)
            meta = gf.Reader(path).meta
        self.assertEqual({k: meta[k] for k in KEYS}, prompt.gguf_metadata())

    def test_small_adapter_can_carry_the_contract(self):
        try:
            from gguf import GGUFReader
        except ImportError:
            self.skipTest("no gguf package (the training environment has it: train/setup.sh)")
        from train.small import export_adapter as ea

        rng = np.random.default_rng(0)
        key = "base_model.model.model.layers.0.mlp.up_proj"
        sd = {
            f"{key}.lora_A.weight": rng.standard_normal((2, 8)).astype(np.float32),
            f"{key}.lora_B.weight": rng.standard_normal((12, 2)).astype(np.float32),
        }
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "a.gguf")
            ea.export(sd, 4.0, 2, path, metadata=prompt.gguf_metadata())
            r = GGUFReader(path)
            got = {k: bytes(r.fields[k].parts[r.fields[k].data[0]]).decode() for k in KEYS}
        self.assertEqual(got, prompt.gguf_metadata())


if __name__ == "__main__":
    unittest.main()
