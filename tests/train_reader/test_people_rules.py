"""The hand-written, hand-labelled rules and situations (train/common/people_rules) and how the
reader's trainer turns them into reading and judging examples."""

from __future__ import annotations

import os
import unittest

from train.common.heldout import composed as heldout
from train.common.people_rules import check, check_situations
from train.reader import data as R


class PeopleRules(unittest.TestCase):
    def test_every_file_passes_its_checker(self):
        rules = check.rule_files()
        self.assertGreaterEqual(len(rules), 4)
        for p in rules:
            rows = check.load([p])
            self.assertEqual([], [m for r in rows for m in check.problems(r)], p)
        for rule, sit in check_situations.pairs():
            self.assertEqual([], check_situations.problems(rule, sit), rule["rule"][:60])

    def test_the_checker_finds_a_literal_not_in_the_rule_and_an_unchosen_option(self):
        row = {
            "rule": "Wet floor: B. Else A.",
            "options": [["A", "mop"], ["B", "sign"], ["C", "call"]],
            "clauses": [{"letter": "B", "texts": ["Dry floor"], "antes": [None], "join": ""}],
            "default": "A",
        }
        msgs = check.problems(row)
        self.assertTrue(any("not found" in m for m in msgs), msgs)
        self.assertTrue(any("chosen by nothing" in m for m in msgs), msgs)

    def test_a_malformed_line_is_named_not_a_crash(self):
        import contextlib
        import io
        import tempfile

        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "bad.jsonl")
            with open(path, "w", encoding="utf-8") as f:
                f.write('{not json\n[1]\n{"rule": 3, "options": 5}\n')
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                status = check.report([path], lambda _p, _k, row: check.problems(row), "rules")
        self.assertEqual(status, 1)
        self.assertIn(":1: not JSON", out.getvalue())
        self.assertIn(":2: not a JSON object", out.getvalue())
        self.assertIn(":3: ", out.getvalue())
        self.assertIn("3 rules, 3 problems", out.getvalue())

    def test_situation_truths_must_give_the_answer(self):
        rule = {
            "rule": "Wet floor: B. Else A.",
            "clauses": [{"letter": "B", "texts": ["Wet floor"], "antes": [None], "join": ""}],
            "default": "A",
        }
        sit = {"rule": rule["rule"], "situations": [{"state": "s", "holds": [[True]], "answer": "A"}] * 3}
        self.assertTrue(any("truths give ['B']" in m for m in check_situations.problems(rule, sit)))

    def test_labelled_rules_become_reading_examples_with_pronouns_resolved(self):
        rows = check.load()
        made = [R.rule_example(R.people_rule(r)) for r in rows]
        # a few labels the reading's spans cannot hold (an antecedent inside its own literal)
        self.assertGreater(sum(m is not None for m in made), 0.9 * len(rows))
        for row, ex in zip(rows, made):
            if ex is None:
                continue
            # a pronoun's literal span starts after the pronoun
            lits = [ex.rule[s.start : s.end] for s in ex.spans if s.tag == "LIT"]
            want = [t for c in row["clauses"] for t in c["texts"]]
            self.assertEqual(len(lits), len(want))
            self.assertTrue(all(w.endswith(g) for g, w in zip(lits, want)), (lits, want))
            letters = [o[0] for o in row["options"]]
            want_opt = [letters.index(c["letter"]) for c in row["clauses"] for _ in c["texts"]]
            self.assertEqual(ex.literal_option, want_opt)

    def test_situations_become_judge_examples_without_number_labels(self):
        pairs = check_situations.pairs()
        self.assertGreater(len(pairs), 0)
        rule, sit = pairs[0]
        groups = R.people_judges(rule, sit)
        self.assertEqual(len(groups), len(sit["situations"]))
        n_lits = sum(len(c["texts"]) for c in rule["clauses"])
        for g, s in zip(groups, sit["situations"]):
            self.assertEqual(len(g), n_lits)
            self.assertEqual([e.holds for e in g], [v for h in s["holds"] for v in h])
            self.assertTrue(all(e.state == s["state"] and not e.numbers_known for e in g))

    def test_resolved_puts_the_antecedent_in_place_of_the_pronoun(self):
        self.assertEqual(R.resolved("it is wet", "the floor"), "the floor is wet")
        self.assertEqual(R.resolved("it is wet", None), "it is wet")

    def test_some_rules_overlap_no_held_out_text(self):
        rows = [R.people_rule(r) for r in check.load()]
        self.assertGreater(sum(heldout.clean(r) for r in rows), len(rows) // 2)


if __name__ == "__main__":
    unittest.main()
