"""meadow-reader's dense labels (train/reader/data.py) and their decoding (train/reader/decide.py).

Tokens here come from a plain regex split (words, numbers, single punctuation), not the model's
WordPiece tokenizer, which the CI machine does not have: what is tested is that the tags the
trainer writes decode back into the composer's literals, with pronouns resolved.
"""

from __future__ import annotations

import random
import re
import unittest

from train.reader import data as R
from train.reader import decide as D
from train.common import compose

TOKEN = re.compile(r"\w+|[^\w\s]")


def offsets(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in TOKEN.finditer(text)]


def composed(n_rules: int, seed: int):
    rng = random.Random(seed)
    domains = compose.load_bank()
    out = []
    while len(out) < n_rules:
        items = compose.items_for_rule(rng, rng.choice(domains), 3, dense=True)
        if items:
            out.append(items)
    return out


class ReadingLabels(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.groups = composed(600, seed=5)

    def test_dense_labels_do_not_change_the_draws(self):
        plain = compose.generate(compose.load_bank(), 50, seed=9)
        rng = random.Random(9)
        domains = compose.load_bank()
        dense = []
        while len(dense) < 50:
            items = compose.items_for_rule(rng, rng.choice(domains), 3, dense=True)
            if items:
                dense.append(items)
        self.assertEqual([[i.to_json() for i in g] for g in plain], [[i.to_json() for i in g] for g in dense])

    def test_tags_decode_to_the_composed_literals(self):
        checked = pronouns = 0
        for g in self.groups:
            item = g[0]
            examples = R.reading_examples(item)
            if not examples:
                continue
            for ex in examples:
                letter = ex.query.split(":", 1)[0]
                offs = offsets(ex.rule)
                tags = R.token_tags(offs, [True] * len(offs), ex.spans)
                got = D.clauses_from_tags(ex.rule, offs, [1] * len(offs), tags)
                want = [(c["resolved"], c["join"]) for c in item.reading["clauses"] if c["letter"] == letter]
                # the model's vocabulary is uncased; a capital where a line starts is no difference
                got = [([t.lower() for t in c.texts], c.join) for c in got]
                want = [([t.lower() for t in ts], j) for ts, j in want]
                self.assertEqual(got, want, ex.rule)
                pronouns += sum(1 for s in ex.spans if s.tag == "PRON")
                checked += 1
        self.assertGreater(checked, 1500)
        self.assertGreater(pronouns, 10)

    def test_the_default_is_one_option_or_none(self):
        for g in self.groups:
            flags = [e.is_default for e in R.reading_examples(g[0])]
            self.assertLessEqual(sum(flags), 1)
            if g[0].reading["default"] is not None and flags:
                self.assertEqual(sum(flags), 1)

    def test_every_form_is_composed_with_its_labels(self):
        forms = {f for g in self.groups for it in g for f in it.forms if R.rule_example(g[0])}
        for tag in (
            "if",
            "when",
            "means",
            "colon",
            "arrow",
            "bullets",
            "table",
            "and",
            "or",
            "not",
            "unless",
            "number-threshold",
            "named-by-text",
            "parentheses",
            "pronoun",
            "multi-condition",
            "default",
            "otherwise-first",
            "otherwise-middle",
            "otherwise-last",
            "letters-out-of-order",
            "distractor",
        ):
            self.assertIn(tag, forms)


class RuleReadingLabels(unittest.TestCase):
    """The one-pass reading: every literal tagged, each pointing at its option."""

    def test_tags_decode_to_the_literals_and_links_to_their_options(self):
        checked = pronouns = 0
        for g in composed(600, seed=8):
            item = g[0]
            ex = R.rule_example(item)
            if ex is None:
                continue
            # offsets per segment, as a tokenizer of pairs gives them
            offs = offsets(ex.rule) + offsets(ex.listing)
            seq = [0] * len(offsets(ex.rule)) + [1] * len(offsets(ex.listing))
            tags, ante, lit_tokens, opt_tokens = R.rule_token_labels(offs, seq, ex)
            got = D.literals_from_rule_tags(
                ex.rule, offs, seq, [max(t, 0) for t in tags], [a > 0 for a in ante]
            )
            want = [t for c in item.reading["clauses"] for t in c["resolved"]]
            self.assertEqual([x[0].lower() for x in got], [w.lower() for w in want], ex.rule)
            self.assertEqual(len(lit_tokens), len(ex.literal_option))
            self.assertTrue(all(toks for toks in opt_tokens), ex.listing)
            letters = [c["letter"] for c in item.reading["clauses"] for _ in c["texts"]]
            self.assertEqual([item.options[k][0] for k in ex.literal_option], letters)
            pronouns += sum(1 for sp in ex.spans if sp.tag == "PRON")
            checked += 1
        self.assertGreater(checked, 500)
        self.assertGreater(pronouns, 10)


class JudgeLabels(unittest.TestCase):
    def test_truth_follows_the_world_and_numbers_point_at_numbers(self):
        numeric = 0
        for g in composed(400, seed=6):
            for item in g:
                for ex in R.judge_examples(item):
                    self.assertIn(ex.op, R.OPS)
                    if ex.op == "none":
                        continue
                    numeric += 1
                    t1 = D.parse_number(ex.condition[slice(*ex.thresholds[0])])
                    v = D.parse_number(ex.state[slice(*ex.value)])
                    t2 = (
                        D.parse_number(ex.condition[slice(*ex.thresholds[1])])
                        if len(ex.thresholds) > 1
                        else None
                    )
                    self.assertIsNotNone(t1, ex)
                    self.assertIsNotNone(v, ex)
                    # the arithmetic the runtime does on the tagged numbers gives the label
                    self.assertEqual(D.compare(ex.op, v, t1, t2), ex.holds, ex)
        self.assertGreater(numeric, 100)

    def test_judge_tags_cover_the_numbers(self):
        cond, state = "the level is above 2.5 metres", "The gauge reads 3.1 metres."
        t, v = cond.index("2.5"), state.index("3.1")
        ex = R.JudgeExample(cond, state, True, ">", [(t, t + 3)], (v, v + 3))
        cond, state = offsets(ex.condition), offsets(ex.state)
        seq = [0] * len(cond) + [1] * len(state)
        tags = R.judge_token_tags(cond + state, seq, ex)
        names = [R.JUDGE_TAGS[t] for t in tags]
        self.assertEqual(names.count("T1"), 3)  # "2", ".", "5"
        self.assertEqual(names.count("V"), 3)
        self.assertEqual(
            D.tagged_run(ex.condition, cond + state, seq, tags, R.JUDGE_TAGS.index("T1"), 0), "2.5"
        )


class Combine(unittest.TestCase):
    def reading(self):
        return D.Reading(
            [
                D.OptionReading("A", "stop", [D.Clause(["x"], "")], 0.0),
                D.OptionReading("B", "go", [], 0.9),
                D.OptionReading("C", "wait", [D.Clause(["y", "z"], "and")], 0.0),
            ]
        )

    def test_the_default_takes_what_no_condition_claims(self):
        probs = D.combine(self.reading(), [0.1, 0.9, 0.1])
        self.assertEqual(max(probs, key=probs.get), "B")
        self.assertAlmostEqual(sum(probs.values()), 1.0)

    def test_a_holding_condition_wins_and_and_needs_both(self):
        probs = D.combine(self.reading(), [0.05, 0.95, 0.95])
        self.assertEqual(max(probs, key=probs.get), "C")
        probs = D.combine(self.reading(), [0.97, 0.95, 0.05])
        self.assertEqual(max(probs, key=probs.get), "A")


if __name__ == "__main__":
    unittest.main()
