"""train/nano/diag/exam_torch.py (and exam_letterings.py, match.py, probe_events.py) on a tiny random checkpoint: the misses it reports are the decider's own,
the relabelled and rephrased rows count every item, and a missing task file exits 2.

    python3 -m unittest discover -s tests/train -p 'test_exam_torch.py' -v
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import tempfile
import unittest

import torch

from tests.train.helpers import VOCAB
from train.nano import eval_table as E
from train.nano.diag import exam_letterings, exam_torch, probe_events
from train.nano.diag import match as diag_match
from train.nano.model import Config, DreamModel
from train.nano.tokenizer.bpe import Tokenizer


def _task(name: str, rule: str, options: list[str], exam: list[tuple[str, str]]) -> dict:
    return {
        "name": name,
        "rule": rule,
        "options": [{"letter": "ABCDEF"[i], "text": t} for i, t in enumerate(options)],
        "exam": [{"status": s, "expected": L} for s, L in exam],
    }


class ExamTorchTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        torch.manual_seed(5)
        cfg = Config(vocab=len(Tokenizer.load(VOCAB)), dim=32, layers=2, heads=2, kv_heads=1, ffn=64)
        m = DreamModel(cfg)
        for p in m.parameters():  # a random model with decided (not uniform) answers
            p.data += 0.3 * torch.randn_like(p)
        cls.dir = tempfile.TemporaryDirectory()
        cls.ckpt = os.path.join(cls.dir.name, "ckpt.pt")
        torch.save(
            {
                "model": m.state_dict(),
                "config": cfg.to_dict(),
                "tokenizer": VOCAB,
                "seed": 0,
                "step": 11,
                "stage": 13,
            },
            cls.ckpt,
        )
        # every built-in name, so the rephrased rows find their task (texts are stand-ins)
        cls.tasks = [
            _task(
                n,
                "Push in the same direction the car is moving. Otherwise choose A.",
                ["push left", "do nothing", "push right"],
                [
                    ("the car is moving left", "A"),
                    ("the car is still right of the middle", "B"),
                    ("the car is moving right", "C"),
                ],
            )
            for n in E.BUILTIN
        ]
        cls.tasks_json = os.path.join(cls.dir.name, "tasks.json")
        with open(cls.tasks_json, "w", encoding="utf-8") as f:
            json.dump(cls.tasks, f)

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def _run(self, *args: str) -> tuple[int, str]:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = exam_torch.main(["--ckpt", self.ckpt, "--tasks", self.tasks_json, *args])
        return rc, out.getvalue()

    def test_misses_are_the_deciders(self):
        dec = E.TorchDecider(self.ckpt)
        want = 0
        for t in self.tasks:
            opts = [(o["letter"], o["text"]) for o in t["options"]]
            probs = dec.probs([(t["rule"], opts, [e["status"] for e in t["exam"]])])[0]
            want += sum(max(p, key=p.get) != e["expected"] for e, p in zip(t["exam"], probs))
        rc, out = self._run("--verbose")
        self.assertEqual(rc, 0)
        self.assertIn(f"misses: {want} (step 11, stage 13)", out)
        self.assertEqual(out.count("   want "), want)
        self.assertEqual(out.count("   margin "), 1)  # mountaincar's one "still" item

    def test_all_rows_count_every_item(self):
        rc, out = self._run("--all", "--relational-tables", "3")
        self.assertEqual(rc, 0)
        h, n = map(int, re.search(r"relabelled exams: (\d+)/(\d+)", out).groups())
        self.assertEqual(n, 3 * len(E.BUILTIN))
        self.assertEqual(out.count("   relabelled "), n - h)
        h, n = map(int, re.search(r"rephrasings: (\d+)/(\d+)", out).groups())
        self.assertEqual(n, len(E.load_rephrased()))
        self.assertEqual(out.count("   rephrased "), n - h)
        self.assertRegex(out, r"relational \(3 tables, mixed-clauses eval stream\): [01]\.\d{3}")

    def test_skills_rows_count_every_situation(self):
        dec = E.TorchDecider(self.ckpt)
        rows = exam_torch.binding(dec, 4)
        cases = E.synthetic_cases(dec.seed + E.EVAL_SEED_OFFSET, "mixed-clauses", 4, relational=True)
        self.assertEqual(sum(n for _, n in rows.values()), sum(len(c.situations) for c in cases))
        self.assertTrue(all(0 <= h <= n for h, n in rows.values()))
        look = exam_torch.lookup(dec, 40)
        self.assertTrue(
            set(look) <= {(w, h) for w in ("neutral", "same", "other") for h in ("text", "letter")}
        )
        self.assertIn(("other", "text"), look)  # the shape mountaincar's still items need
        self.assertGreater(sum(n for _, n in look.values()), 10)

    def test_event_probe_counts_every_situation(self):
        out = io.StringIO()
        js = os.path.join(self.dir.name, "events.json")
        with contextlib.redirect_stdout(out):
            rc = probe_events.main(["--ckpt", self.ckpt, "--tables", "4", "--threads", "1", "--json", js])
        self.assertEqual(rc, 0)
        with open(js) as f:
            rows = json.load(f)["rows"]
        self.assertEqual([r["name"] for r in rows], [r[0] for r in probe_events.ROWS])
        seed = E.TorchDecider(self.ckpt).seed + E.EVAL_SEED_OFFSET
        for r, (_, stage, split, knobs, share) in zip(rows, probe_events.ROWS):
            cases = E.synthetic_cases(seed, stage, max(1, round(4 * share)), split=split, knobs=knobs)
            self.assertEqual(r["n"], sum(len(c.situations) for c in cases), r["name"])
            self.assertTrue(0 <= r["accuracy"] <= 1)
            self.assertIn(f"| {r['name']} | {r['n']} | {r['accuracy']:.3f} |", out.getvalue())
        # the forced rows are other tables than the stage's own draws
        plain = E.synthetic_cases(seed, 74, 6)
        forced = E.synthetic_cases(seed, 74, 6, knobs={"event_same_end": 1.0})
        self.assertNotEqual([c.situations for c in plain], [c.situations for c in forced])
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertEqual(probe_events.main(["--ckpt", os.path.join(self.dir.name, "none.pt")]), 2)
        self.assertIn("no checkpoint", err.getvalue())
        with contextlib.redirect_stderr(io.StringIO()), self.assertRaises(SystemExit) as ex:
            probe_events.main(["--ckpt", self.ckpt, "--tables", "0"])
        self.assertEqual(ex.exception.code, 2)

    def test_missing_tasks_file_exits_2(self):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            rc = exam_torch.main(["--ckpt", self.ckpt, "--tasks", os.path.join(self.dir.name, "none.json")])
        self.assertEqual(rc, 2)
        self.assertIn("cannot read --tasks", err.getvalue())

    def test_every_lettering_is_decided_and_misses_are_the_deciders(self):
        # 3 options: 6 letterings x 3 items; the reported misses are exactly the decider's
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = exam_letterings.main(
                ["--ckpt", self.ckpt, "--tasks-json", self.tasks_json, "--tasks", "maze", "--show", "100"]
            )
        line = out.getvalue().splitlines()[0]
        m = re.match(r"maze: (\d+) of 18 decisions wrong over 6 letterings", line)
        self.assertIsNotNone(m, line)
        self.assertEqual(rc, 1 if int(m.group(1)) else 0)
        self.assertEqual(len(out.getvalue().splitlines()) - 1, int(m.group(1)))
        with contextlib.redirect_stderr(io.StringIO()):
            self.assertEqual(
                exam_letterings.main(
                    ["--ckpt", self.ckpt, "--tasks-json", self.tasks_json, "--tasks", "nosuch"]
                ),
                2,
            )
            self.assertEqual(
                exam_letterings.main(
                    ["--ckpt", self.ckpt, "--tasks-json", os.path.join(self.dir.name, "none.json")]
                ),
                2,
            )

    def test_match_diagnosis_counts_every_decision(self):
        # every group splits the same decisions, and the accuracy printed is the decider's own
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(diag_match.main(["--ckpt", self.ckpt, "--tables", "40"]), 0)
        head, *rows = out.getvalue().strip().splitlines()
        n = int(re.search(r"(\d+) match decisions", head).group(1))
        dec = E.TorchDecider(self.ckpt)
        tables = diag_match.match_tables(555, 13, 40, "train", whole=True)
        chosen = dec.choose(tables)
        hits = sum(ch == a for c, chs in zip(tables, chosen) for ch, a in zip(chs, c.answers))
        self.assertEqual(n, sum(len(c.situations) for c in tables))
        self.assertIn(f"accuracy {hits / n:.3f}", head)
        for g in ("tokens", "second", "options"):
            counts = [re.search(r"(\d+) /\s+(\d+) =", r).groups() for r in rows if r.split()[0] == g]
            self.assertEqual(sum(int(t) for _, t in counts), n, g)
            self.assertEqual(sum(int(h) for h, _ in counts), hits, g)

    def test_match_diagnosis_rejects_bad_arguments(self):
        for args in (
            ["--stage", "999"],
            ["--tables", "0"],
            ["--ckpt", os.path.join(self.dir.name, "none.pt")],
        ):
            argv = ["--ckpt", self.ckpt, *args]
            with self.assertRaises(SystemExit) as e, contextlib.redirect_stderr(io.StringIO()):
                diag_match.main(argv)
            self.assertEqual(e.exception.code, 2, args)


if __name__ == "__main__":
    unittest.main()
