"""train/nano/diag/recipe_cost.py: its FLOP count equals the matrix products torch's profiler counts in
model.py's forward, and its log reading sums intervals the way the trainer logs them.

    python3 -m unittest discover -s tests/train -p 'test_recipe_cost.py' -v
"""

from __future__ import annotations

import io
import json
import os
import tempfile
import unittest
from contextlib import redirect_stderr

import torch
from torch.profiler import ProfilerActivity, profile

from train.nano.diag import recipe_cost as RC
from train.nano.model import Config, DreamModel

PRODUCTS = ("aten::mm", "aten::addmm", "aten::bmm")


class FlopsTest(unittest.TestCase):
    def counted(self, dim: int, layers: int, B: int, T: int, per_row: int) -> float:
        s = RC.Size(dim, layers)
        m = DreamModel(
            Config(vocab=s.vocab, dim=dim, layers=layers, heads=s.heads, kv_heads=s.heads // 2, ffn=s.ffn)
        )
        g = torch.Generator().manual_seed(1)
        ids = torch.randint(0, s.vocab, (B, T), generator=g)
        pos = torch.arange(T).repeat(B, 1)
        seg = torch.zeros(B, T, dtype=torch.long)
        tb = torch.arange(B).repeat_interleave(per_row)  # the same count per row: no padded query rows
        tp = torch.randperm(T, generator=g)[:per_row].repeat(B)
        with torch.no_grad(), profile(activities=[ProfilerActivity.CPU], with_flops=True) as p:
            m.head(m.hidden(ids, pos, seg, targets=(tb, tp)))
        return sum(e.flops for e in p.events() if e.name in PRODUCTS and e.flops)

    def test_forward_equals_the_profilers_products(self):
        for dim, layers, B, T, n in ((64, 2, 3, 40, 2), (96, 3, 2, 57, 5), (32, 1, 4, 9, 3)):
            with self.subTest(dim=dim, layers=layers):
                self.assertEqual(
                    RC.forward_flops(RC.Size(dim, layers), B, T, n), self.counted(dim, layers, B, T, n)
                )

    def test_step_is_three_forwards(self):
        s = RC.Size(192, 3)
        self.assertEqual(RC.step_flops(s, 16, 250, 12.5), 3 * RC.forward_flops(s, 16, 250, 12.5))

    def test_bad_sizes(self):
        self.assertEqual(RC.parse_size("192x3"), RC.Size(192, 3))
        for bad in ("192", "x3", "100x3", "0x2", "192x0", "axb"):
            with self.assertRaises(ValueError):
                RC.parse_size(bad)


class LogTest(unittest.TestCase):
    def test_intervals(self):
        rows = [
            {"step": 200, "steps_per_s": 2.0, "steps_per_cpu_s": 1.0, "seq_len": 100},
            {"step": 400, "steps_per_s": 4.0, "steps_per_cpu_s": 2.0, "seq_len": 200},
            {"step": 400, "steps_per_s": 4.0, "steps_per_cpu_s": 2.0, "seq_len": 200},  # relogged: skipped
            {"step": 500, "steps_per_s": 1.0, "steps_per_cpu_s": 1.0, "seq_len": 100},
        ]
        s = RC.Size(64, 2)
        c = RC.part_cost(rows, s, 16, 4)
        self.assertEqual(c["steps"], 500)
        self.assertEqual(c["tokens"], 16 * (200 * 100 + 200 * 200 + 100 * 100))
        self.assertAlmostEqual(c["wall_s"], 100 + 50 + 100)
        self.assertAlmostEqual(c["cpu_s"], 200 + 100 + 100)
        want = (
            200 * RC.step_flops(s, 16, 100, 4)
            + 200 * RC.step_flops(s, 16, 200, 4)
            + 100 * RC.step_flops(s, 16, 100, 4)
        )
        self.assertAlmostEqual(c["flops"], want)

    def test_bad_log_exits_2(self):
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "log.jsonl")
            with open(bad, "w") as f:
                f.write(json.dumps({"step": 200}) + "\n{not json\n")
            err = io.StringIO()
            with redirect_stderr(err):
                self.assertEqual(RC.main(["--part", f"x={bad}@64x2"]), 2)
                self.assertEqual(RC.main(["--part", f"x={bad}@64"]), 2)
                self.assertEqual(RC.main(["--part", f"x={d}/missing.jsonl@64x2"]), 2)
            self.assertIn("not JSON", err.getvalue())


if __name__ == "__main__":
    unittest.main()
