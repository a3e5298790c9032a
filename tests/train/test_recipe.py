"""The recipe (train/nano/recipe.py) and its runner (train/nano/run_recipe.py): the dry run lists every
phase and stage, every corpus stage and train.py flag the recipe names exists, and the runner
carries a tiny recipe through the stitch, the fine-tune stages, the spread, a kept-checkpoint
soup and a fresh-optimizer phase, resumably (the joint, polish and events phases' mechanics on
tiny branches).

    python3 -m unittest tests/train/test_recipe.py -v
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import tempfile
import unittest
from dataclasses import replace

import torch

from train.nano import config, model_card, run_recipe
from train.nano import recipe as R
from train.nano import train as T
from train.nano.corpus.curriculum import STAGES


def read(path: str) -> str:
    with open(path) as f:
        return f.read().strip()


def corpus_stages(flags: dict) -> set[str]:
    """Every corpus stage a stage's flags name (by name: the recipe writes no stage numbers)."""
    out = {flags[k] for k in ("stage", "set_stage", "max_stage", "replay_from", "replay_to") if k in flags}
    for k in ("path", "replay"):
        out |= {x for x in str(flags.get(k) or "").split(",") if x}
    return out


class RecipeTest(unittest.TestCase):
    def test_dry_run_lists_every_phase_and_stage(self):
        with contextlib.redirect_stdout(io.StringIO()) as out:
            self.assertEqual(run_recipe.main(["--dry-run"]), 0)
        text = out.getvalue()
        phases = re.findall(r"^phase (\S+) ", text, flags=re.M)
        self.assertEqual(phases, ["scenes", "words", "joint", "polish", "events", "release"])
        for p in R.RECIPE:
            block = text.split(f"phase {p.name} ", 1)[1].split("\nphase ", 1)[0]
            self.assertEqual(re.findall(r"^  (\S+): ", block, flags=re.M), [s.name for s in p.stages], p.name)
        self.assertEqual(text.count("python3 -m train.nano.train "), 41)
        # the shipped lineage's steps (docs/meadow-nano-record.md, train/nano/checkpoints.md)
        for step in ("27,000", "49,000", "39,000", "43,000", "73,000", "109,000", "127,000"):
            self.assertIn(f"to step {step}", text)
        self.assertIn("kept for the soup", text)

    def test_every_named_stage_and_flag_exists(self):
        named = set()
        for step in run_recipe.plan(R.Recipe()):
            if isinstance(step.stage, R.Train):
                named |= corpus_stages(step.stage.flags)
                # train.py parses every command the runner makes
                a = T.parse(run_recipe.train_argv(step, "x"))
                self.assertEqual(a.steps, step.end if step.end is not None else 10**9)
        self.assertTrue(named)
        self.assertEqual(sorted(named - set(STAGES)), [], "stages the recipe names but the curriculum lacks")
        with self.assertRaises(KeyError):
            config.argv({"no_such_flag": 1})

    def test_phase_and_stage_names_are_checked(self):
        t = R.Train("a", {}, steps=1)
        with self.assertRaises(ValueError):
            R.Recipe((R.Phase("p", "r", (t,)), R.Phase("p", "r", (t,))))
        with self.assertRaises(ValueError):
            R.Recipe((R.Phase("p", "r", (t, t)),))
        with self.assertRaises(ValueError):
            R.Recipe((R.Phase("p", "r", (t,), after=("q",)),))
        with contextlib.redirect_stderr(io.StringIO()) as err, self.assertRaises(SystemExit):
            run_recipe.main(["--phase", "nope", "--dry-run"])
        self.assertIn("the phases are scenes, words, joint", err.getvalue())


SMALL = dict(dim=16, heads=2, kv_heads=1, ffn=32, batch=2, eval_every=2, eval_tables=2)


def tiny_recipe() -> R.Recipe:
    """The recipe's shape on two tiny branches: two steps of stage 9, three of stage 16 at three
    layers; the joint (stitch, two steps of stage 13, two fine-tune stages, a sticky flag), the
    polish (spread, two kept stages, the soup), the events (fresh optimizer, one stage)."""

    def ft(name, stage, steps, **kw):
        return R.fine_tune(name, stage, steps, 1e-3, ("scene-same-way",), 0.3, 1, bf16=False, threads=1, **kw)

    return R.Recipe(
        (
            R.Phase("a", "a", (R.Train("a", dict(stage=9, max_stage=9, **SMALL), steps=2),)),
            R.Phase("b", "b", (R.Train("b", dict(stage=16, max_stage=16, layers=3, **SMALL), steps=3),)),
            R.Phase(
                "joint",
                "j",
                (
                    R.Stitch("stitch", "a", "b"),
                    R.Train(
                        "fine-tune", dict(set_stage=13, max_stage=13, path="", promote=2), steps=2, anneal=1
                    ),
                    ft("one", 9, 2),
                    ft("two", 16, 2, read_softmax=True),
                ),
                after=("a", "b"),
            ),
            R.Phase(
                "polish",
                "s",
                (
                    R.Spread("spread", "j", per_stage=20),
                    replace(ft("p1", 9, 2, read_softmax=True), keep=True),
                    replace(ft("p2", 16, 1), keep=True),
                    R.Soup("soup"),
                ),
                after=("joint",),
            ),
            R.Phase("events", "s", (R.FreshOptimizer("fresh"), ft("e1", 16, 1)), after=("polish",)),
        )
    )


class RunnerTest(unittest.TestCase):
    def run_phases(self, runner, names):
        with contextlib.redirect_stdout(io.StringIO()) as out:
            runner.run(names, jobs=2)
        return out.getvalue()

    def test_tiny_recipe(self):
        with tempfile.TemporaryDirectory() as d:
            rec = tiny_recipe()
            runner = run_recipe.Runner(rec, d, f"{d}/m.gguf", "cli", "build", logs=True)
            runner.env = dict(runner.env, OMP_NUM_THREADS="1")
            # a phase whose inputs are missing stops with one line, before training
            with self.assertRaises(run_recipe.RecipeError) as e:
                self.run_phases(runner, ["joint"])
            self.assertIn("needs", str(e.exception))
            self.run_phases(runner, ["a", "b", "joint"])
            self.assertTrue(os.path.exists(f"{d}/a.log") and os.path.exists(f"{d}/b.log"))
            j = torch.load(f"{d}/j/ckpt.pt", weights_only=False)
            # stitch at 3 (b's step), stage 13 to 5, the stages to 7 and 9; read_softmax stays on
            self.assertEqual((j["step"], j["stage"], j["args"]["read_softmax"]), (9, "chat-plateau", True))
            self.assertEqual(j["args"]["anneal"], [8, 9])
            self.assertEqual(read(f"{d}/j/joint.start"), "3")
            # a rerun trains nothing
            self.assertNotIn("train.nano.train", self.run_phases(runner, ["joint"]))

            # the polish: a checkpoint that is not spread is refused
            os.makedirs(f"{d}/s")
            shutil.copy(f"{d}/j/ckpt.pt", f"{d}/s/ckpt.pt")
            with self.assertRaises(run_recipe.RecipeError) as e:
                self.run_phases(runner, ["polish"])
            self.assertIn("not a spread checkpoint", str(e.exception))
            shutil.rmtree(f"{d}/s")
            out = self.run_phases(runner, ["polish"])
            self.assertIn("train.nano.spread_unread", out)
            s = torch.load(f"{d}/s/ckpt.pt", weights_only=False)
            self.assertEqual((s["step"], s["stage"], s["spread"]["step"]), (12, "chat-plateau", 9))
            # the model is the mean of the two kept checkpoints, the last first
            k2, k3 = (torch.load(f"{d}/s/keep-{n}.pt", weights_only=False) for n in (2, 3))
            self.assertEqual((k2["step"], k3["step"], s["soup"]["steps"]), (11, 12, [12, 11]))
            for name, w in s["model"].items():
                torch.testing.assert_close(w, (k2["model"][name] + k3["model"][name]) / 2)
            out = self.run_phases(runner, ["polish"])
            self.assertIn("done (the mean of polish steps 2 3)", out)
            self.assertNotIn("train.nano.train", out)

            # the events phase: a fresh optimizer, then its stages from the mean (in a copy: the
            # card below reads the mean)
            shutil.copytree(f"{d}/s", f"{d}/p")
            runner_p = run_recipe.Runner(
                R.Recipe((R.Phase("events", "p", tiny_recipe().by_name["events"].stages),)),
                d,
                "m",
                "c",
                "b",
                False,
            )
            self.run_phases(runner_p, ["events"])
            p = torch.load(f"{d}/p/ckpt.pt", weights_only=False)
            self.assertEqual((read(f"{d}/p/events.start"), p["step"]), ("12", 13))
            self.assertEqual(p["soup"]["steps"], [12, 11])  # kept for the card
            self.assertNotIn("train.nano.train", self.run_phases(runner_p, ["events"]))

            # the card tells the polish's steps apart from the joint's, and the event stages
            for name, v in {
                "eval.json": {"rows": [], "info": {"stage": 13, "tables": 1, "seconds": 1}},
                "bench.json": {"threads": 2, "machine": "m", "decisions_per_task": 1, "tasks": {}},
            }.items():
                with open(f"{d}/{name}", "w") as f:
                    json.dump(v, f)
            for name, data in (("plays.txt", b""), ("m.gguf", b"x" * 10)):
                with open(f"{d}/{name}", "wb") as f:
                    f.write(data)
            files = ["--gguf", f"{d}/m.gguf", "--eval", f"{d}/eval.json", "--bench", f"{d}/bench.json"]
            files += ["--plays", f"{d}/plays.txt", "--targets", f"{d}/t.json"]
            with contextlib.redirect_stdout(io.StringIO()):
                model_card.main(["--ckpt", f"{d}/s/ckpt.pt", "--out", f"{d}/card.md", *files])
                model_card.main(["--ckpt", f"{d}/p/ckpt.pt", "--out", f"{d}/card-post.md", *files])
            card = read(f"{d}/card.md")
            self.assertIn("Joint fine-tune (phase `joint`): 6 steps", card)
            self.assertIn("Then the polish (phase `polish`): 3 steps with the read softmax", card)
            self.assertIn("the mean of the polish's checkpoints at steps 2, 3 after the spread", card)
            self.assertNotIn("`events` phase", card)
            self.assertIn(
                "at steps 2, 3 after the spread (its `soup` stage, `train/nano/average.py`), "
                "then the `events` phase's cycles from that mean to step 13.",
                read(f"{d}/card-post.md"),
            )


if __name__ == "__main__":
    unittest.main()
