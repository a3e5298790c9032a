"""Tests of stitching two branches (train/nano/stitch.py) and the joint's record reaching the card.

python3 -m unittest tests/train/test_stitch.py -v
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import re
import shutil
import tempfile
import unittest

import torch

from tests.train.helpers import QUICK_EVAL, TINY_MODEL, VOCAB
from train.nano.corpus.generate import example
from train.nano.tokenizer.bpe import Tokenizer


class StitchTest(unittest.TestCase):
    """A stitched model computes the sum of its two halves' logits: exactly when the halves'
    streams have equal rms, and closer with the rms plan than without it otherwise."""

    def _model(self, seed, dim, heads, kv, ffn, scale):
        from train.nano.model import Config, DreamModel

        torch.manual_seed(seed)
        m = DreamModel(
            Config(vocab=len(Tokenizer.load(VOCAB)), dim=dim, layers=2, heads=heads, kv_heads=kv, ffn=ffn)
        )
        with torch.no_grad():
            for p in m.parameters():
                p += 0.05 * torch.randn_like(p)
            m.embed.weight *= scale  # streams of different size, as two separately trained models have
        return m.double().eval()

    def _logits(self, st, b):
        from train.nano.model import Config, DreamModel

        m = DreamModel(Config(**st["config"]))
        m.load_state_dict(st["model"])
        with torch.no_grad():
            return m.double().head(m.hidden(b["ids"], b["pos"], b["seg"]))

    def test_stitch(self):
        from train.nano import stitch
        from train.nano.batching import Packer

        a, b_ = self._model(1, 32, 4, 2, 64, 1.0), self._model(2, 48, 6, 3, 96, 3.0)
        sa = {"model": a.state_dict(), "config": a.c.to_dict(), "seed": 0, "step": 1}
        sb = {"model": b_.state_dict(), "config": b_.c.to_dict(), "seed": 0, "step": 9, "stage": 4}
        batch = Packer(Tokenizer.load(VOCAB)).batch([example(0, 13, i) for i in range(4)], random.Random(0))
        with torch.no_grad():
            za, zb = (m.head(m.hidden(batch["ids"], batch["pos"], batch["seg"])) for m in (a, b_))
        self_st = stitch.stitch(sa, sa)  # equal halves: equal rms, so the sum is exact
        self.assertLess((self._logits(self_st, batch) - 2 * za).abs().max().item(), 1e-6)
        from train.nano.grow import deepen  # a deeper B: A gets blocks that compute nothing, still exact

        deep = stitch.stitch(sa, deepen(deepen(sa)))  # (blocks appended, as stitch appends them)
        self.assertEqual(deep["config"]["layers"], 4)
        self.assertLess((self._logits(deep, batch) - 2 * za).abs().max().item(), 1e-6)
        plain = stitch.stitch(sa, sb)
        self.assertEqual(
            (plain["config"]["dim"], plain["config"]["heads"], plain["config"]["kv_heads"]), (80, 10, 5)
        )
        self.assertEqual(plain["step"], 9)
        self.assertGreater((self._logits(plain, batch) - (za + zb)).abs().mean().item(), 0.1)  # rms coupling
        # A2 = A with its stream twice as large (same function): the plan scales it back, exactly
        sd2 = {k: v * 2 if k.split(".")[-2] in ("embed", "o", "down") else v for k, v in sa["model"].items()}
        sd2["norm.weight"] = sd2["norm.weight"] / 2
        sa2 = {**sa, "model": sd2}
        a2 = self._model(1, 32, 4, 2, 64, 1.0)
        a2.load_state_dict(sd2)
        c, gains = stitch.plan(stitch.stream_rms(a2, batch), stitch.stream_rms(a, batch), 32, 32)
        self.assertAlmostEqual(c, 0.5, places=5)
        self.assertLess(
            (self._logits(stitch.stitch(sa2, sa, c, gains), batch) - 2 * za).abs().max().item(), 1e-5
        )
        wrong = {**sb, "config": {**sb["config"], "heads": 3}}  # 1 query head per KV head, A has 2
        with self.assertRaises(SystemExit):
            stitch.stitch(sa, wrong)
        with self.assertRaises(SystemExit) as e:
            stitch.main(["--a", "/nonexistent/a.pt", "--b", "/nonexistent/b.pt", "--out", "/tmp/never.pt"])
        self.assertIn("no checkpoint", str(e.exception))


def _quiet():
    return contextlib.redirect_stdout(io.StringIO())


def _train_branches(d: str) -> dict:
    """Two branches (a: 2 layers, b: 3), stitched into j and fine-tuned 5 steps: j's checkpoint."""
    from train.nano import stitch, train

    small = [*TINY_MODEL, *QUICK_EVAL]
    with _quiet():
        train.main(["--run", f"{d}/a", "--stage", "9", "--max-stage", "9", "--steps", "2"] + small)
        train.main(
            ["--run", f"{d}/b", "--layers", "3", "--stage", "16", "--max-stage", "16", "--steps", "3"] + small
        )
        stitch.main(["--a", f"{d}/a/ckpt.pt", "--b", f"{d}/b/ckpt.pt", "--out", f"{d}/j/ckpt.pt"])
        train.main(["--run", f"{d}/j", "--set-stage", "13", "--max-stage", "13", "--steps", "5", *QUICK_EVAL])
    return torch.load(f"{d}/j/ckpt.pt", weights_only=False)


def _card_inputs(d: str) -> None:
    """The measurements a card is written from, minimal: one exam row, one bench task, one play."""
    row = {
        "name": "exam: cartpole",
        "n": 1,
        "accuracy": 1.0,
        "misses": 0,
        "target_kind": "max_misses",
        "target": 0,
        "pass": True,
    }
    t = {
        "cached": {"p50_ms": 1, "p95_ms": 1},
        "uncached": {"p50_ms": 2, "p95_ms": 2},
        "first_with_prefix_ms": 3,
    }
    files = {
        "eval.json": {"rows": [row], "info": {"stage": 13, "tables": 1, "seconds": 1}},
        "bench.json": {"threads": 2, "machine": "m", "decisions_per_task": 1, "tasks": {"cartpole": t}},
    }
    for name, v in files.items():
        with open(f"{d}/{name}", "w") as f:
            json.dump(v, f)
    with open(f"{d}/plays.txt", "w") as f:
        f.write("cartpole: PASS balanced\n")
    with open(f"{d}/m.gguf", "wb") as f:
        f.write(b"x" * 10)


def _write_card(d: str, ckpt: str) -> str:
    """The model card of `ckpt` from _card_inputs' files, written to card.md: its text."""
    from train.nano import model_card

    inputs = ["--gguf", f"{d}/m.gguf", "--eval", f"{d}/eval.json", "--bench", f"{d}/bench.json"]
    outputs = ["--plays", f"{d}/plays.txt", "--out", f"{d}/card.md", "--targets", f"{d}/t.json"]
    with _quiet():
        model_card.main(["--ckpt", ckpt, *inputs, *outputs])
    with open(f"{d}/card.md") as f:
        return f.read()


class JoinedCardTest(unittest.TestCase):
    """stitch.py records both branches, train.py keeps the record through the joint fine-tune,
    and the model card reports each branch's shape, steps, time and tables apart."""

    def test_branches_reach_the_card(self):
        with tempfile.TemporaryDirectory() as d:
            st = _train_branches(d)
            self.assertEqual(st["step"], 5)
            pa, pb = st["parents"]["a"], st["parents"]["b"]
            self.assertEqual(
                (pa["step"], pa["config"]["layers"], pb["step"], pb["config"]["layers"]), (2, 2, 3, 3)
            )
            self.assertEqual(st["config"]["dim"], 32)
            _card_inputs(d)
            self._check_joint_card(_write_card(d, f"{d}/j/ckpt.pt"), pb)
            self._check_soup(d)

    def _check_joint_card(self, card: str, pb: dict) -> None:
        from train.nano import model_card

        self.assertIn("Scene branch (phase `scenes`): 16 x 2, 2 steps", card)
        self.assertIn("Word branch (phase `words`): 16 x 3, 3 steps", card)
        self.assertIn("Joint fine-tune (phase `joint`): 2 steps", card)
        # the joint's precision and threads come from its checkpoint (float32, one thread here)
        self.assertIn("the joint fine-tune on one CPU thread, float32", card)
        self.assertIn(
            "The scene branch on one CPU thread, float32; the word branch on one CPU thread, float32", card
        )
        # a word branch in bf16 that takes a second thread once the scene branch is done
        self.assertEqual(
            model_card._how({"threads": 1, "bf16": True, "threads_later": ["r/scenes.done", "2"]}),
            "one CPU thread, 2 CPU threads once `scenes.done` existed, bfloat16 autocast",
        )
        joint = re.search(r"joint fine-tune: ([^.]*)\.", card).group(1)
        self.assertEqual(sum(int(n) for n in re.findall(r"stage \d+: (\d+) tables", joint)), 2 * 2, joint)
        self.assertIn(f"stage 16: {pb['counters']['chat-plateau']} tables; joint fine-tune: ", card)
        self.assertNotIn("Soup", card)

    def _check_soup(self, d: str) -> None:
        """Two fine-tunes of j averaged with it (train/nano/average.py) reach the card as a soup;
        different architectures are an error, not a partial mean."""
        from train.nano import average, train

        for k in (1, 2):
            shutil.copytree(f"{d}/j", f"{d}/j{k}")
            with _quiet():
                train.main(
                    ["--run", f"{d}/j{k}", "--set-stage", "61", "--max-stage", "61", "--steps", str(5 + k)]
                    + QUICK_EVAL
                )
        with _quiet():
            runs = [f"{d}/j/ckpt.pt", f"{d}/j1/ckpt.pt", f"{d}/j2/ckpt.pt"]
            self.assertEqual(average.main_args(["--out", f"{d}/soup.pt", *runs]), 0)
        soup = torch.load(f"{d}/soup.pt", weights_only=False)
        parts = [torch.load(f"{d}/{r}/ckpt.pt", weights_only=False) for r in ("j", "j1", "j2")]
        for name, w in soup["model"].items():
            torch.testing.assert_close(w, sum(p["model"][name] for p in parts) / 3)
        self.assertEqual(soup["step"], 5)
        self.assertEqual([b["steps"] for b in soup["soup"]["branches"]], [1, 2])
        # batch 2 tables a step
        self.assertEqual(sum(soup["counters"].values()), sum(parts[0]["counters"].values()) + 2 * 1 + 2 * 2)
        self.assertIn(
            "Soup: 2 fine-tunes of the joint's last step (stage final-mix, 1 steps, stage final-mix, 2 steps)",
            _write_card(d, f"{d}/soup.pt"),
        )
        with contextlib.redirect_stderr(io.StringIO()) as err:
            self.assertEqual(
                average.main_args(["--out", f"{d}/bad.pt", f"{d}/j/ckpt.pt", f"{d}/a/ckpt.pt"]), 2
            )
        self.assertIn("differ in architecture", err.getvalue())
        self.assertFalse(os.path.exists(f"{d}/bad.pt"))


if __name__ == "__main__":
    unittest.main()
