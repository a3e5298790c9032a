"""Tests of the scene and relational tables (train/nano/corpus/scenes.py, tables.py).

python3 -m unittest tests/train/test_scenes.py -v
"""

from __future__ import annotations

import random
import re
import unittest

from train.nano.corpus.generate import example


class PlacePoolTest(unittest.TestCase):
    """Stage 30: place nouns from every dictionary noun (rare tokens), never a task's noun."""

    def test_place_nouns(self):
        import re

        from train.nano.corpus import phrases as P
        from train.nano.corpus import scenes as S

        common = set(P._nouns())
        place = re.compile(r"(?:up|above|in|near|to|from|on|under|of) (?:the|a) ([a-z]+)")
        for pool, rare_share in ((0.0, (0.0, 0.0)), (1.0, (0.6, 1.0))):
            found = rare = 0
            for k in range(60):
                t = S.scene_table(random.Random(k), level=3, place_pool=pool)
                for j in range(6):
                    s, _ = t.situation(random.Random(j))
                    for noun in place.findall(s):
                        self.assertNotIn(noun, P.TASK_NOUNS)
                        found += 1
                        rare += noun not in common and noun not in t.rule
            self.assertGreater(found, 40)
            self.assertGreaterEqual(rare / found, rare_share[0])
            self.assertLessEqual(rare / found, rare_share[1])

    def test_mixed_relational_stages(self):
        # stage 37: half scenes (with stage 14's still clauses), 60 % of the word tables relational;
        # stage 47: relational word tables only; stage 30 has none
        kinds = [example(0, 37, i).kind for i in range(300)]
        self.assertGreater(kinds.count("relational"), 60)
        self.assertGreater(kinds.count("scene"), 110)
        self.assertLess(kinds.count("scene"), 190)
        self.assertEqual({example(0, 47, i).kind for i in range(100)}, {"relational"})
        self.assertNotIn("relational", [example(0, 30, i).kind for i in range(300)])

    def test_two_pair_relational_tables(self):
        # stage 61 has most relational word tables in two direction pairs (4 options, each
        # answer's pair partner and the other pair's words all present); stage 51 keeps 0.3
        from train.nano.corpus.curriculum import stage
        from train.nano.corpus.tables import sample_table

        def four_options(st):
            ts = [
                t
                for t in (sample_table(random.Random(k), stage(st)) for k in range(600))
                if t.kind == "relational"
            ]
            return sum(len(t.options) == 4 for t in ts) / len(ts), len(ts)

        share51, n51 = four_options(51)
        share61, n61 = four_options(61)
        self.assertLess(share51, 0.4)
        self.assertGreater(share61, 0.7)
        self.assertGreater(n61, n51)

    def test_more_place_phrases(self):
        # stage 61 has phrases.MORE_PLACES ("along the bottom of the N"); stage 51 never has them
        from train.nano.corpus import phrases
        from train.nano.corpus.generate import example

        def share(st):
            sits = [s for i in range(150) for s in example(0, st, i).suffixes]
            return sum(any(f" the {p} of the " in s for p in phrases.PLACE_PARTS) for s in sits) / len(sits)

        self.assertEqual(share(51), 0)
        self.assertGreater(share(61), 0.01)

    def test_hazard_phrase_first(self):
        # stage 60's toward / away scene situations open with the hazard's phrase about half the
        # time they have one (the goal's phrase, marked, comes later); the older scenes rarely do
        import re

        from train.nano.corpus import marks, scenes

        def share(hazard_first):
            first = with_hazard = 0
            for i in range(300):
                t = scenes.relational_table(random.Random(i), 0.3, 6, marked=True, hazard_first=hazard_first)
                m = re.search(r"toward the (\w+)|away from the (\w+)", t.rule)
                if not m:
                    continue
                goal = m.group(1) or m.group(2)
                for k in range(4):
                    s, _ = t.situation(random.Random(f"{i}:{k}"))
                    plain = marks.strip(s)
                    if " is still" in plain or f"the {goal} " not in plain:
                        continue
                    # a hazard phrase: another thing's "is/lies D" besides the goal's
                    if len(re.findall(r"\b(?:is|lies) \w+", plain)) < 2:
                        continue
                    with_hazard += 1
                    first += not plain.startswith(f"the {goal} ")
                    if hazard_first:
                        self.assertIn(marks.noun(goal), s)
            return first / with_hazard

        self.assertLess(share(0.0), 0.3)
        self.assertGreater(share(0.5), 0.4)

    def test_place_direction_forms(self):
        # stage 61 says a toward / away place's direction in other words ("the goal is 9 steps
        # below"), always a form of the answer's direction; stage 60 never does
        import re

        from train.nano.corpus import scenes

        found = 0
        for i in range(300):
            for pf in (0.0, 0.5):
                t = scenes.relational_table(
                    random.Random(i), 0.3, 6, marked=True, hazard_first=0.5, place_forms=pf
                )
                for k in range(3):
                    s, letter = t.situation(random.Random(f"{i}:{k}"))
                    m = re.search(r"\ue000\w+\ue001 is \d+ \w+ \ue002([\w ]+)\ue003", s)
                    self.assertTrue(m is None or pf, s)
                    if m:
                        direction = {o.letter: o.text for o in t.options}[letter].split()[-1]
                        if re.match(r"(\w+|Keep) away from", t.rule):  # an away rule: the other way
                            direction = scenes.OPPOSITE[direction]
                        self.assertIn(m.group(1), scenes.PLACE_DIR_FORMS[direction], (s, t.rule))
                        found += 1
        self.assertGreater(found, 20)

    def test_scene_letters_out_of_order(self):
        # stage 51 lists most scene tables' letters out of order; stage 37 keeps 65 % in order
        from train.nano.corpus.curriculum import stage
        from train.nano.corpus.tables import sample_table

        def in_order(st):
            ts = [
                t
                for t in (sample_table(random.Random(k), stage(st)) for k in range(300))
                if t.kind == "scene"
            ]
            return sum([o.letter for o in t.options] == list("ABCDEF"[: len(t.options)]) for t in ts) / len(
                ts
            )

        self.assertGreater(in_order(37), 0.5)
        self.assertLess(in_order(51), 0.35)

    def test_still_place_clauses(self):
        # stage 37: "the X is still D of the N" picks the option its clause names, which holds
        # D, the opposite direction or "wait" alike (no "still -> wait" shortcut); without the knob none
        from train.nano.corpus.curriculum import stage
        from train.nano.corpus.tables import relational_table

        holds, other = 0, 0
        for k in range(200):
            t = relational_table(random.Random(k), stage(37))
            for j in range(8):
                s, letter = t.situation(random.Random(j))
                m = re.search(r"is still (\w+) of the", s)
                if m:
                    self.assertIn(f"still {m.group(1)} of the", t.rule)
                    text = {o.letter: o.text for o in t.options}[letter]
                    holds += text.endswith(" " + m.group(1))
                    other += not text.endswith(" " + m.group(1))
        self.assertGreater(holds, 20)
        self.assertGreater(other, 20)
        from dataclasses import replace

        plain = replace(stage(37), still_places=0.0)
        self.assertFalse(
            any(
                re.search(r"still \w+ of the", relational_table(random.Random(k), plain).rule)
                for k in range(200)
            )
        )

    def test_level5_scene_still_clauses_name_options_by_text(self):
        # scene level 4 names a still clause's option by its letter half the time; level 5
        # always by its text, and the situation answers with that option's letter
        from train.nano.corpus.scenes import relational_table

        def clauses(level):
            by_letter = by_text = 0
            for k in range(300):
                t = relational_table(random.Random(k), 0.35, level)
                text = {o.letter: o.text for o in t.options}
                for clause in re.findall(r"[^.]*is still \w+ of the [^.]*", t.rule):
                    by_letter += bool(re.search(r"(?i)\b(choose|pick|answer|take) [A-F]\b", clause))
                    by_text += any(v in clause.lower() for v in text.values())
                for j in range(6):
                    s, letter = t.situation(random.Random(j))
                    m = re.search(r"is still (\w+) of the (\w+)", s)
                    if m and level == 5:
                        clause = re.search(
                            rf"[^.]*still {m.group(1)} of the {m.group(2)}[^.]*", t.rule
                        ).group(0)
                        self.assertIn(text[letter], clause.lower(), (t.rule, s))
            return by_letter, by_text

        l4, t4 = clauses(4)
        l5, t5 = clauses(5)
        self.assertGreater(l4, 40)
        self.assertGreater(t4, 40)
        self.assertEqual(l5, 0)
        self.assertGreater(t5, 100)

    def test_level6_one_still_clause_names_the_neutral_option(self):
        from train.nano.corpus.scenes import NEUTRAL, relational_table

        neutral_named = tables = 0
        for k in range(300):
            t = relational_table(random.Random(k), 0.35, 6)
            texts = {o.text for o in t.options}
            clauses = re.findall(r"[^.]*is still \w+ of the [^.]*", t.rule)
            if len(clauses) == 2 and texts & set(NEUTRAL):
                tables += 1
                neutral_named += any(n in c.lower() for c in clauses for n in texts & set(NEUTRAL))
        self.assertGreater(tables, 60)
        self.assertGreater(neutral_named, 0.65 * tables)  # by text (a quarter are by letter)

    def test_level8_lookup_drill_names_by_letter_half_the_time(self):
        # stage 62's drill: every table has two still clauses, about half naming their option
        # by letter, and a still situation answers with the letter its own clause names
        from train.nano.corpus.scenes import relational_table

        by_letter = clauses_n = checked = 0
        for k in range(200):
            t = relational_table(random.Random(k), 0.35, 8)
            text = {o.letter: o.text for o in t.options}
            clauses = re.findall(r"[^.]*is still \w+ of the [^.]*", t.rule)
            self.assertGreaterEqual(len(clauses), 1, t.rule)
            for c in clauses:
                clauses_n += 1
                by_letter += bool(re.search(r"(?i)\b(choose|pick|answer|take|select) [A-F]\b", c))
            for j in range(6):
                s, letter = t.situation(random.Random(j))
                m = re.search(r"is still (\w+) of the (\w+)", s)
                if not m:
                    continue
                clause = re.search(rf"[^.]*still {m.group(1)} of the {m.group(2)}[^.]*", t.rule).group(0)
                named = re.search(r"(?i)\b(?:choose|pick|answer|take|select) ([A-F])\b", clause)
                if named:
                    self.assertEqual(named.group(1), letter, (t.rule, s))
                else:
                    self.assertIn(text[letter].lower(), clause.lower(), (t.rule, s))
                checked += 1
        self.assertGreater(checked, 500)
        self.assertGreater(by_letter, 0.35 * clauses_n)
        self.assertLess(by_letter, 0.65 * clauses_n)

    def test_binding_drill_other_thing_never_shares_the_direction(self):
        # the binding drill (stage 47 without its marks): two options, one other thing, always in the other direction word, so
        # reading either phrase at random scores 0.5, not 0.75
        from dataclasses import replace

        from train.nano.corpus.curriculum import stage
        from train.nano.corpus.tables import relational_table

        n = 0
        for k in range(100):
            t = relational_table(random.Random(k), replace(stage(47), marks=False))
            self.assertEqual(len(t.options), 2)
            dirs = [o.text.split()[-1] for o in t.options]
            for j in range(6):
                s, _ = t.situation(random.Random(j))
                found = [w for w in re.findall(r"[a-z]+", s.lower()) if w in dirs]
                if len(found) == 2:
                    n += 1
                    self.assertNotEqual(found[0], found[1], s)
        self.assertGreater(n, 400)


if __name__ == "__main__":
    unittest.main()
