"""train/nano/model_card.py's short card (models/MODEL_CARD.md) from plain measurements: two screens,
the four parts, the five exams as one row, and limits that follow the numbers.

    python3 -m unittest discover -s tests/train -p 'test_model_card.py' -v
"""

from __future__ import annotations

import copy
import os
import unittest

from train.nano import model_card

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def facts() -> dict:
    def t(ms):
        return {
            "cached": {"p50_ms": ms, "p95_ms": ms + 1},
            "uncached": {"p50_ms": 2 * ms, "p95_ms": 2 * ms + 1},
            "first_with_prefix_ms": 3 * ms,
        }

    by_kind = {
        "match": {"n": 10, "accuracy": 0.9, "chance": 0.35},
        "scene": {"n": 40, "accuracy": 0.99, "chance": 0.3},
    }
    rows = [
        {
            "name": "held-out synthetic tables (stage 13)",
            "n": 50,
            "accuracy": 0.98,
            "chance": 0.33,
            "se": 0.01,
            "target": 0.98,
            "pass": True,
            "by_kind": by_kind,
        }
    ]
    rows += [
        {
            "name": f"exam: {name}",
            "n": 10,
            "accuracy": 1.0,
            "misses": 0,
            "target_kind": "max_misses",
            "target": 0,
            "pass": True,
        }
        for name in model_card.TASKS
    ]
    rows += [
        {
            "name": "rephrasing robustness (heldout/rephrased.txt)",
            "n": 47,
            "accuracy": 0.95,
            "target": 0.9,
            "pass": True,
        }
    ]
    return {
        "arch": {"layers": 3, "dim": 192, "heads": 12, "kv_heads": 6, "ffn": 576, "vocab": 4096},
        "params": 2116032,
        "bytes": 8594496,
        "phases": [
            ("scene branch", 100, 1.0),
            ("word branch", 200, 2.0),
            ("joint fine-tune", 300, 3.0),
            ("polish", 400, 4.0),
        ],
        "wall_min": 9.0,
        "all_min": 10.0,
        "how": "2 CPU threads, bfloat16 autocast",
        "spread": True,
        "recipe": "train/nano/recipe.py",
        "eval": {"info": {"stage": 13, "tables": 600, "seconds": 1}, "rows": rows},
        "plays": {name: "PASS done" for name in model_card.TASKS},
        "met": {name: True for name in model_card.TASKS},
        "bench": {
            "threads": 2,
            "machine": "m",
            "decisions_per_task": 200,
            "tasks": {"cartpole": t(1.5), "maze": t(1.8)},
        },
        "tests": {"RelabellingTheOptionsRelabelsTheChoice": True},
        "record": "docs/meadow-nano-record.md",
    }


class ShortCardTest(unittest.TestCase):
    def test_two_screens_with_the_four_parts(self):
        text = model_card.short_card(facts())
        self.assertLessEqual(len(text.splitlines()), 100)
        for part in ("## What", "## Trained how", "## Measured how well", "## Limits"):
            self.assertIn(part, text)
        card = " ".join(text.split())  # the prose is wrapped at 100 columns
        self.assertIn("2,116,032 parameters", card)
        self.assertIn("`docs/meadow-nano-record.md`", card)
        self.assertIn(
            "joint fine-tune 300 steps (3.0 min); the unread embeddings spread; polish 400 steps", card
        )
        self.assertIn("| built-in exams (5 tasks) | 50 | 50/50 (0 missed) |", card)
        self.assertNotIn("exam: cartpole", card)
        self.assertIn("cached p50 1.5-1.8 ms (p95 at most 2.8), uncached p50 3.0-3.6 ms", card)
        self.assertIn("RelabellingTheOptionsRelabelsTheChoice pass", card)
        self.assertIn("0.900 against 0.990 on the held-out row", card)
        self.assertNotIn("Not met", card)
        # prose lines stay within the repository's 100 columns (tables may be wider)
        self.assertEqual([x for x in text.splitlines() if len(x) > 100 and not x.startswith("|")], [])

    def test_limits_follow_the_numbers(self):
        f = facts()
        row = f["eval"]["rows"][-1]
        row["accuracy"], row["pass"] = 0.85, False
        f["met"]["maze"] = False
        kinds = f["eval"]["rows"][0]["by_kind"]
        kinds["match"]["accuracy"], kinds["scene"]["accuracy"] = 0.37, 0.3  # match at chance, above scenes
        card = " ".join(model_card.short_card(f).split())
        self.assertIn("Not met: rephrasing robustness (heldout/rephrased.txt), maze", card)
        self.assertIn("| maze | PASS done | no |", card)
        self.assertIn(
            "At chance (within 0.05): match tables in held-out synthetic tables (stage 13) (0.370", card
        )
        self.assertNotIn("read less surely than scenes", card)

    def test_one_run_without_branches(self):
        f = copy.deepcopy(facts())
        f["phases"], f["spread"] = [("training", 500, 5.0)], False
        f["tests"], f["bench"]["tasks"] = {}, {}
        card = " ".join(model_card.short_card(f).split())
        self.assertIn("Phases: training 500 steps (5.0 min). PyTorch", card)
        self.assertNotIn("in parallel", card)
        self.assertNotIn("Relabelling tests", card)
        self.assertNotIn("Speed", card)


if __name__ == "__main__":
    unittest.main()
