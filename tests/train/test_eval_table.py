"""train/nano/eval_table.py's model-free parts: the rephrased-file parser, the relabelling helper,
and the seen / unseen word split the unseen-words row relies on.

    python3 -m unittest discover -s tests/train -p 'test_eval_table.py' -v
"""

from __future__ import annotations

import random
import unittest

from train.nano import eval_table as E
from train.nano.corpus import tables as T
from train.nano.corpus import wordlists as W
from train.nano.corpus.curriculum import STAGES
from train.common.heldout import filter as heldout


class RephrasedTest(unittest.TestCase):
    def test_parse(self):
        lines = [
            "# comment\n",
            "\n",
            "cartpole\tA\tthe pole tips over to the left\n",
            "maze\tD\tthe open path leads upward  # trailing comment\n",
        ]
        self.assertEqual(
            E.parse_rephrased(lines),
            [
                ("cartpole", "A", "the pole tips over to the left"),
                ("maze", "D", "the open path leads upward"),
            ],
        )
        for bad in ("cartpole A the pole", "cartpole\tAB\tthe pole", "cartpole\t\tthe pole", "a\tB\tc\td"):
            with self.assertRaises(ValueError):
                E.parse_rephrased([bad])

    def test_table_se(self):
        # tables as the sampled unit: no spread when every table reads the same, and errors bunched
        # in a few tables spread more than the same errors spread evenly (what a binomial misses)
        self.assertEqual(E.table_se([[True, False]] * 10), 0.0)
        bunched = [[False] * 4] * 2 + [[True] * 4] * 18
        even = [[False, True, True, True]] * 2 + [[True] * 4] * 18
        self.assertGreater(E.table_se(bunched), E.table_se(even))
        # 20 tables, 2 of them all wrong: p = 0.9; 18 tables off by 0.4, 2 by 3.6: 2.88 + 25.92
        self.assertAlmostEqual(E.table_se(bunched), (28.8 * 20 / 19) ** 0.5 / 80)
        self.assertNotEqual(E.table_se([[True]]), E.table_se([[True]]))  # one table: no estimate (nan)

    def test_shipped_file(self):
        items = E.load_rephrased()
        per_task = {t: sum(1 for x in items if x[0] == t) for t in E.BUILTIN}
        for t, n in per_task.items():
            self.assertTrue(8 <= n <= 12, (t, n))
        self.assertEqual({x[0] for x in items}, set(E.BUILTIN))
        # the held-out filter reads the sentence column only, and holds every sentence out
        held = {s for name, s in heldout.load_sentences() if name == "rephrased.txt"}
        self.assertEqual(held, {s for _, _, s in items})
        h = heldout.default()
        for _, _, s in items:
            self.assertIsNotNone(h.find("now " + s + " again"), s)


class RelabelTest(unittest.TestCase):
    def test_derangement_moves_every_letter(self):
        for n in range(2, 7):
            letters = list("ABCDEF"[:n])
            for i in range(20):
                p = E.derangement(random.Random(i), letters)
                self.assertEqual(sorted(p), letters)
                self.assertEqual(sorted(p.values()), letters)
                self.assertTrue(all(k != v for k, v in p.items()))

    def test_relabel_rule_and_options(self):
        rule = "If the pole is falling left, choose A. B for the cart's wheel; Pick C when A-1 is near."
        opts = [("A", "push left"), ("B", "push right"), ("C", "wait")]
        perm = {"A": "C", "B": "A", "C": "B"}
        r, o = E.relabel(rule, opts, perm)
        self.assertEqual(
            r, "If the pole is falling left, choose C. A for the cart's wheel; Pick B when A-1 is near."
        )
        self.assertEqual(o, [("C", "push left"), ("A", "push right"), ("B", "wait")])  # listing order kept
        with self.assertRaises(
            ValueError
        ):  # a lone letter that is no option: cannot tell a word from a letter
            E.relabel("If I see it, choose A.", opts[:2], {"A": "B", "B": "A"})

    def test_runtime_prompt(self):
        p = E.runtime_prompt("x, choose B.", [("B", "go"), ("A", "stay")])
        self.assertTrue(p.endswith("Rule: x, choose B.\nOptions:\nB) go\nA) stay\n"), p)


class ByKindTest(unittest.TestCase):
    def test_a_kind_at_chance_shows_under_a_good_mean(self):
        scene = E.Case("scene", "r", [("A", "x"), ("B", "y")], ["s"] * 4, ["A"] * 4, ["A"] * 4)
        match = E.Case(
            "match", "r", [("A", "x"), ("B", "y"), ("C", "z"), ("D", "w")], ["s"] * 2, ["B", "C"], ["A", "C"]
        )
        k = E.by_kind([scene, match])
        self.assertEqual(list(k), ["match", "scene"])
        self.assertEqual((k["match"]["n"], k["match"]["accuracy"], k["match"]["chance"]), (2, 0.5, 0.25))
        self.assertEqual((k["scene"]["n"], k["scene"]["accuracy"], k["scene"]["chance"]), (4, 1.0, 0.5))
        row = E.acc_row("held-out", E.synthetic_hits([scene, match]), 0.98, by_kind=k)
        self.assertAlmostEqual(row["accuracy"], 5 / 6)
        lines = E.fmt_row(row).splitlines()
        self.assertEqual(len(lines), 3)
        self.assertIn("· match tables (chance 0.250) | 2 | 0.500 |", lines[1])


class WordSplitTest(unittest.TestCase):
    def test_split_is_deterministic_and_about_ten_percent(self):
        words = W.dictionary_words()
        share = sum(map(W.is_unseen, words)) / len(words)
        self.assertTrue(0.08 < share < 0.12, share)
        self.assertEqual(W.is_unseen("fermenting"), W.is_unseen("ferment"))

    def test_pools_draw_from_their_side(self):
        st = STAGES["mixed-clauses"]  # the recipe's last stage: half its words from the full list
        for split in ("train", "unseen"):
            with W.word_split(split):
                pool = T.Pool(random.Random(split), st)
                for _ in range(200):
                    self.assertEqual(W.is_unseen(pool.word()), split == "unseen")
        self.assertEqual(W.current_split(), "train")

    def test_marked_stages_are_evaluated_on_plain_text(self):
        # stages 47-62 hold probe marks (private-use characters) that the packer strips in
        # training; the eval rows must read the same plain text (they were at chance with the marks)
        from train.nano.corpus import marks

        for st in (47, 51, 53, 61, 62):
            cases = E.synthetic_cases(1, st, 12)
            texts = (
                [c.rule for c in cases]
                + [t for c in cases for _, t in c.options]
                + [x for c in cases for x in c.situations]
            )
            self.assertFalse(any(marks.has_marks(t) for t in texts), st)

    def test_an_exhausted_pool_is_an_error_not_a_hang(self):
        st = STAGES["chat-three-options"]  # common words only
        with W.word_split("unseen"):
            pool = T.Pool(random.Random(0), st)
            with self.assertRaisesRegex(ValueError, "word pool exhausted"):
                for _ in range(100_000):
                    pool.word()


if __name__ == "__main__":
    unittest.main()
