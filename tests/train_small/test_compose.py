"""meadow-small's data: the rule composer (train/common/compose.py) and its held-out filter.

python3 -m unittest discover -s tests/train_small -p 'test_*.py' -v
"""

from __future__ import annotations

import random
import unittest

from train.common import compose
from train.common.heldout import composed as heldout
from train.common.compose import Cat, Num, Rule, answer_of


def world(aspects=None, nums=None):
    return {"aspects": aspects or {}, "nums": nums or {}}


class Semantics(unittest.TestCase):
    def test_strict_and_inclusive_thresholds(self):
        for op, below, on, above in ((">", 1, 1, 0), (">=", 1, 0, 0), ("<", 0, 1, 1), ("<=", 0, 0, 1)):
            rule = Rule([([Num(0, op, 30)], "", 0)], default=1)
            got = [answer_of(rule, world(nums={0: v})) for v in (29, 30, 31)]
            want = [below, on, above]
            self.assertEqual(got, want, op)

    def test_range_is_inclusive(self):
        rule = Rule([([Num(0, "in", 10, 20)], "", 0)], default=1)
        self.assertEqual([answer_of(rule, world(nums={0: v})) for v in (9, 10, 20, 21)], [1, 0, 0, 1])

    def test_and_or_not(self):
        both = Rule([([Cat(0, 1), Cat(1, 0)], "and", 0)], default=1)
        self.assertEqual(answer_of(both, world({0: 1, 1: 0})), 0)
        self.assertEqual(answer_of(both, world({0: 1, 1: None})), 1)
        either = Rule([([Cat(0, 1), Cat(1, 0)], "or", 0)], default=1)
        self.assertEqual(answer_of(either, world({0: 2, 1: 0})), 0)
        self.assertEqual(answer_of(either, world({0: 2, 1: 1})), 1)
        negated = Rule([([Cat(0, 1, neg=True)], "", 0)], default=1)
        self.assertEqual(answer_of(negated, world({0: 1})), 1)
        self.assertEqual(answer_of(negated, world({0: None})), 0)

    def test_two_clauses_with_different_options_are_ambiguous(self):
        rule = Rule([([Cat(0, 1)], "", 0), ([Num(0, ">", 5)], "", 1)], default=2)
        self.assertIsNone(answer_of(rule, world({0: 1}, {0: 9})))

    def test_no_default_and_no_clause_has_no_answer(self):
        rule = Rule([([Cat(0, 1)], "", 0)], default=None)
        self.assertEqual(answer_of(rule, world({0: 0})), -1)


class Items(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.domains = compose.load_bank()
        cls.groups = compose.generate(cls.domains, 400, seed=7, states_per_rule=4)

    def test_bank_is_well_formed(self):
        self.assertGreaterEqual(len(self.domains), 60)
        for d in self.domains:
            self.assertTrue(5 <= len(d["actions"]) <= 8, d["domain"])
            for a in d["aspects"]:
                for s in a["situations"]:
                    self.assertTrue(s["clause"] and s["not_clause"] and s["label"], d["domain"])
                    self.assertGreaterEqual(len(s["states"]), 5, d["domain"])
            for q in d["numeric"]:
                self.assertEqual(q["state"].count("{v}"), 1, d["domain"])
                self.assertLess(q["lo"], q["hi"], d["domain"])

    def test_items_are_well_formed(self):
        for g in self.groups:
            self.assertTrue(all(it.rule == g[0].rule and it.options == g[0].options for it in g))
            for it in g:
                letters = [l for l, _ in it.options]
                self.assertEqual(len(set(letters)), len(letters))
                self.assertTrue(set(letters) <= set("ABCDEF"))
                self.assertTrue(2 <= len(letters) <= 6)
                self.assertIn(it.answer, letters)
                self.assertTrue(it.rule.strip() and it.state.strip())

    def test_generation_is_a_function_of_the_seed(self):
        again = compose.generate(self.domains, 400, seed=7, states_per_rule=4)
        self.assertEqual(
            [[i.to_json() for i in g] for g in again], [[i.to_json() for i in g] for g in self.groups]
        )
        other = compose.generate(self.domains, 400, seed=8, states_per_rule=4)
        self.assertNotEqual(other[0][0].to_json(), self.groups[0][0].to_json())

    def test_forms_people_write_all_occur(self):
        forms = {f for g in self.groups for it in g for f in it.forms}
        for tag in (
            "if",
            "when",
            "means",
            "colon",
            "arrow",
            "bullets",
            "table",
            "parentheses",
            "named-by-text",
            "otherwise-first",
            "otherwise-middle",
            "otherwise-last",
            "and",
            "or",
            "not",
            "unless",
            "number-threshold",
            "distractor",
            "letters-out-of-order",
            "default",
        ):
            self.assertIn(tag, forms)

    def test_answers_spread_over_letters(self):
        # Over 4,000 rules the shares are A .34, B .34, C .19, D .09; these 400 rules (about
        # 1,500 answers) sit within a few standard deviations of that.
        answers = [it.answer for g in self.groups for it in g]
        for letter, least in (("A", 0.25), ("B", 0.25), ("C", 0.13), ("D", 0.06)):
            self.assertGreater(answers.count(letter) / len(answers), least, letter)


class HeldOut(unittest.TestCase):
    def test_exam_sets_are_held_out(self):
        h = heldout.default()
        texts = heldout.exam_texts()
        self.assertGreater(len(texts), 1000)  # natural.jsonl and fresh.jsonl
        rng = random.Random(0)
        for t in rng.sample(texts, 50):
            item = compose.Item(
                "If it rains, choose A.", [("A", "x"), ("B", "y")], "Padding words. " + t, "A", [], ""
            )
            self.assertFalse(heldout.clean(item), t)
        self.assertIsNotNone(h.find("the answer: " + texts[0].upper()))

    def test_the_training_stream_is_clean(self):
        from train.small.train import groups_stream  # torch-free path below

        stream = groups_stream(compose.load_bank(), seed=3, states_per_rule=3)
        h = heldout.default()
        for _ in range(300):
            for it in next(stream):
                for t in [it.rule, it.state] + [o for _, o in it.options]:
                    self.assertIsNone(h.find(t), t)


if __name__ == "__main__":
    unittest.main()
