"""train/nano/model_card.py: the card (models/MODEL_CARD.md) and the record
(docs/meadow-nano-record.md) filled from the measured facts: two screens, the four parts, the
five exams as one row, limits that follow the numbers, the templates' conditionals, and the
committed card and record equal to their templates filled from models/meadow-nano.measured.json.

    python3 -m unittest discover -s tests/train -p 'test_model_card.py' -v
"""

from __future__ import annotations

import copy
import json
import os
import unittest

from tests.train.helpers import ROOT
from train.nano import model_card


def facts() -> dict:
    """Measured facts as model_card.gather() writes them: a joined model (two branches), spread
    and polished."""

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
    config = {
        "vocab": 4096,
        "dim": 192,
        "layers": 3,
        "heads": 12,
        "kv_heads": 6,
        "ffn": 576,
        "rope_theta": 1e4,
    }
    how = {"threads": 1, "bf16": False, "threads_later": None}
    args = {"batch": 16, "lr": 1e-4, "anneal": [800, 900], "threads": 2, "bf16": True, "read_softmax": True}
    return {
        "model": {"config": config, "params": 2116032, "bytes": 8594496, "tokenizer": "vocab.json"},
        "training": {
            # scene branch 100 steps (1 min), word branch 200 (2 min), joint 300 (3 min) to the
            # spread at step 500, polish 400 (4 min)
            "step": 900,
            "stage": 67,
            "elapsed_s": 540,
            "counters": {"13": 30, "25": 40},
            "args": args,
            "parents": {
                "a": {"config": {**config, "dim": 64, "layers": 2}, "counters": {"13": 10}, "how": how}
                | {"step": 100, "stage": 30, "elapsed_s": 60},
                "b": {"config": {**config, "dim": 128}, "counters": {"25": 20}, "how": how}
                | {"step": 200, "stage": 25, "elapsed_s": 120},
            },
            "spread": {
                "unread": 85,
                "read": 3388,
                "stages": 38,
                "per_stage": 400,
                "step": 500,
                "elapsed_s": 300,
            },
            "soup": None,
        },
        "eval": {"info": {"stage": 13, "tables": 600, "seconds": 1}, "rows": rows},
        "bench": {
            "threads": 2,
            "machine": "m",
            "decisions_per_task": 200,
            "tasks": {"cartpole": t(1.5), "maze": t(1.8)},
        },
        "plays": {name: "PASS done" for name in model_card.TASKS},
        "relabelling_tests": {"RelabellingTheOptionsRelabelsTheChoice": True},
        "recipe": "train/nano/recipe.py",
        "lineage": "",
    }


class CardTest(unittest.TestCase):
    def test_two_screens_with_the_four_parts(self):
        text = model_card.card(facts())
        self.assertLessEqual(len(text.splitlines()), 100)
        for part in ("## What", "## Trained how", "## Measured how well", "## Limits"):
            self.assertIn(part, text)
        card = " ".join(text.split())  # the prose is wrapped at 100 columns
        self.assertIn("2,116,032 parameters", card)
        self.assertIn("`docs/meadow-nano-record.md`", card)
        self.assertIn("(`models/meadow-nano.measured.json`)", card)
        self.assertIn(
            "joint fine-tune 300 steps (3.0 min); the unread embeddings spread; polish 400 steps", card
        )
        self.assertIn("with the two branches in parallel", card)
        self.assertIn("| built-in exams (5 tasks) | 50 | 50/50 (0 missed) |", card)
        self.assertNotIn("exam: cartpole", card)
        self.assertIn("cached p50 1.5-1.8 ms (p95 at most 2.8), uncached p50 3.0-3.6 ms", card)
        self.assertIn("RelabellingTheOptionsRelabelsTheChoice pass", card)
        self.assertIn("0.900 against 0.990 on the held-out row", card)
        self.assertNotIn("Not met", card)
        self.assertNotIn("<!--", card)
        # prose lines stay within the repository's 100 columns (tables may be wider)
        self.assertEqual([x for x in text.splitlines() if len(x) > 100 and not x.startswith("|")], [])

    def test_limits_follow_the_numbers(self):
        f = facts()
        row = f["eval"]["rows"][-1]
        row["accuracy"], row["pass"] = 0.85, False
        f["plays"]["maze"] = "FAIL done"
        kinds = f["eval"]["rows"][0]["by_kind"]
        kinds["match"]["accuracy"], kinds["scene"]["accuracy"] = 0.37, 0.3  # match at chance, above scenes
        card = " ".join(model_card.card(f).split())
        self.assertIn("Not met: rephrasing robustness (heldout/rephrased.txt), maze", card)
        self.assertIn("| maze | FAIL done | no |", card)
        self.assertIn(
            "At chance (within 0.05): match tables in held-out synthetic tables (stage 13) (0.370", card
        )
        self.assertNotIn("read less surely than scenes", card)
        self.assertFalse(model_card.met(f)["maze"])
        record = model_card.record(f)
        self.assertIn("situations reworded by hand are still below their bar", record)
        self.assertIn('"match" tables are the open-vocabulary word tables', record)

    def test_one_run_without_branches(self):
        f = copy.deepcopy(facts())
        for k in ("parents", "spread"):
            f["training"][k] = None
        f["training"]["args"].update(promote=0.9, lr2=1e-3, lr2_acc=0.8, anneal=None)
        f["relabelling_tests"], f["bench"]["tasks"] = {}, {}
        card = " ".join(model_card.card(f).split())
        self.assertIn("Phases: training 900 steps (9.0 min). PyTorch", card)
        self.assertNotIn("in parallel", card)
        self.assertNotIn("Relabelling tests", card)
        self.assertNotIn("Speed", card)
        record = model_card.record(f)
        self.assertIn("- 900 steps, 9.0 minutes of wall time summed over resumed invocations", record)
        self.assertIn("lr 0.0001 at the last invocation, then 0.001 once an eval reaches 0.8;", record)
        self.assertNotIn("Scene branch", record)
        self.assertNotIn("spread_unread", record)

    def test_the_record_tells_the_phases_apart(self):
        record = model_card.record(facts())
        self.assertIn(
            "- Scene branch (phase `scenes`): 64 x 2, 100 steps, 1.0 minutes, final stage 30.", record
        )
        self.assertIn("- Joint fine-tune (phase `joint`): 300 steps, 3.0 minutes.", record)
        self.assertIn("- Then the polish (phase `polish`): 400 steps with the read softmax", record)
        self.assertIn("falling linearly to 5 % of it from step 800 to 900; stage 67.", record)
        self.assertIn(
            "word branch: stage 25: 20 tables; joint fine-tune: stage 13: 30 tables, stage 25: 20", record
        )
        # a paragraph a line, no template markers left
        self.assertNotIn("<!--", record)
        self.assertFalse(any(x.startswith(" ") for x in record.splitlines()))


class TemplateTest(unittest.TestCase):
    def test_conditionals(self):
        t = "a<!-- if x --> b<!-- else --> c<!-- end --> d\n<!-- if not y -->\ne\n<!-- end -->\nf\n"
        self.assertEqual(model_card._conditionals(t, {"x": True}), "a b d\ne\nf\n")
        self.assertEqual(model_card._conditionals(t, {"y": 1}), "a c d\nf\n")
        nested = "<!-- if x -->1<!-- if y -->2<!-- else -->3<!-- end -->4<!-- else -->5<!-- end -->"
        self.assertEqual(model_card._conditionals(nested, {"x": 1}), "134")
        self.assertEqual(model_card._conditionals(nested, {"y": 1}), "5")
        for bad in ("<!-- if x -->", "<!-- end -->", "<!-- else -->"):
            with self.assertRaises(ValueError):
                model_card._conditionals(bad, {})

    def test_fill_reflows_prose_and_keeps_tables(self):
        t = "# T\n\nsome\nwords $n\n\n| a |\n| $n |\n\n- one\n  two\n- three\n"
        self.assertEqual(
            model_card.fill(t, {"n": 5}, None), "# T\n\nsome words 5\n\n| a |\n| 5 |\n\n- one two\n- three\n"
        )
        self.assertEqual(model_card.fill("w " * 30, {}, 20).splitlines()[0], "w w w w w w w w w w")
        with self.assertRaises(KeyError):
            model_card.fill("$missing", {}, None)


class CommittedCardTest(unittest.TestCase):
    """The committed card, record and targets are their templates filled from the committed facts
    (rerun `python3 -m train.nano.model_card --facts models/meadow-nano.measured.json` after
    editing a template)."""

    def test_committed_files_are_filled_from_the_committed_facts(self):
        with open(os.path.join(ROOT, model_card.FACTS)) as f:
            measured = json.load(f)
        for path, text in (
            (model_card.CARD, model_card.card(measured)),
            (model_card.RECORD, model_card.record(measured)),
        ):
            with open(os.path.join(ROOT, path)) as f:
                self.assertEqual(f.read(), text, f"{path} is not its template filled from {model_card.FACTS}")
        with open(os.path.join(ROOT, model_card.TARGETS)) as f:
            self.assertEqual(json.load(f)["met"], model_card.met(measured))


if __name__ == "__main__":
    unittest.main()
