"""Tests of the corpus's rewording (train/nano/corpus/reword.py) and scene fronting.

python3 -m unittest tests/train/test_reword.py -v
"""

from __future__ import annotations

import random
import re
import unittest


def changed_keeping_letters(test: unittest.TestCase, knob: str) -> int:
    """Scene tables with a rewording knob at 0 and at 1: same rule, same letter for the same
    situation draw; returns how many of the 150 situations the knob changed."""
    from train.nano.corpus import scenes as S

    changed = 0
    for k in range(30):
        plain, varied = (S.scene_table(random.Random(k), level=3, **{knob: p}) for p in (0.0, 1.0))
        test.assertEqual(plain.rule, varied.rule)
        for j in range(5):
            (s0, l0), (s1, l1) = plain.situation(random.Random(j)), varied.situation(random.Random(j))
            test.assertEqual(l0, l1)
            changed += s0 != s1
    return changed


class RewordTest(unittest.TestCase):
    """Stage 29's rewording keeps what a situation says: the condition's direction survives,
    a synonym never collides with another verb of the rule, and the letter is unchanged."""

    def test_reword(self):
        from train.nano.corpus import reword as R
        from train.nano.corpus import scenes as S

        motion = {v0 for v0, _ in S.MOTION}
        for v, syns in R.SYNONYMS.items():
            self.assertIn(v, motion)
            for s0, s3 in syns:  # a synonym is never another MOTION verb (distractors use those)
                self.assertTrue(s0.split()[0] == v or s0.split()[0] not in motion, s0)
        rule = "If the fox is moving left, choose A. If the fox is heading right, choose B."
        seen = set()
        for i in range(400):
            r = random.Random(i)
            out = R.reword(r, "the fox is moving left, leans far right, is near the barn", rule)
            head_dir = "left" in out.split("right")[0] or out.startswith("leaning") or "although" in out
            self.assertIn("left", out)
            self.assertTrue(head_dir, out)
            self.assertNotRegex(out, r"\b(going|goes|travelling|travels)\b")  # heading's synonyms too
            seen.add(out)
        self.assertGreater(len(seen), 40)  # it does reword
        r = random.Random(1)
        outs = {
            R.reword(r, "the fox is still left of the barn", "If the fox is still left of the barn, wait.")
            for _ in range(200)
        }
        self.assertTrue(any("not moving" in o or "at rest" in o or "stands still" in o for o in outs))
        self.assertTrue(all("left" in o for o in outs))
        # a reworded table answers what the same table does unreworded
        self.assertGreater(changed_keeping_letters(self, "rephrase"), 75)


class RewordLevel2Test(unittest.TestCase):
    """Stage 42's rewording: more verb and modifier synonyms, distractors' directions reworded,
    a whole distractor clause sometimes first; what the situation says is unchanged."""

    def test_reword_level2(self):
        from train.nano.corpus import reword as R
        from train.nano.corpus import scenes as S

        motion = {v0 for v0, _ in S.MOTION}
        for v, syns in R.SYNONYMS2.items():
            self.assertIn(v, motion)
            for s0, _ in syns:
                self.assertNotIn(s0.split()[0], motion, s0)
                self.assertNotIn(s0.split()[0][:-3], S.ACTIONS, s0)  # "racing" is no option's verb
        rule = "If the fox sinks too fast, choose A. If the fox leans too far left, choose B. Otherwise choose C."
        seen, mods, first = set(), set(), 0
        for i in range(400):
            out = R.reword(
                random.Random(i), "the fox sinks too fast, the barn is left, and the owl leans right", rule, 2
            )
            self.assertRegex(out, r"fox (sinks|drops|descends|comes down|plunges) too")
            mods.add(re.search(r"fox \w+( down)? (too \w+)", out).group(2))
            first += not out.startswith("the fox") and not out.startswith("leaning")
            self.assertIn("left", out)
            self.assertIn("right", out)
            seen.add(out)
            self.assertEqual(
                R.reword(random.Random(i), "the fox sinks too fast", rule, 1).count("too fast"), 1
            )
        self.assertEqual(mods, {"too fast", "too quickly", "too rapidly"})
        self.assertGreater(first, 20)  # "the barn is left; the fox ..." (a whole clause first)
        self.assertGreater(len(seen), 100)
        # a modifier the rule itself uses is never the new word
        rule2 = "If the fox moves left fast, choose A. If the fox moves left quickly, choose B."
        for i in range(200):
            self.assertNotIn("quickly", R.reword(random.Random(i), "the fox moves left fast", rule2, 2))


class FrontTest(unittest.TestCase):
    """The front knob (the removed stage 32) moves one phrase before the subject and keeps every other word."""

    def test_front(self):
        from train.nano.corpus import reword as R

        r = random.Random(0)
        self.assertEqual(
            R.front(r, "the fox is moving left, is high above the barn"),
            "high above the barn, the fox is moving left",
        )
        self.assertEqual(R.front(r, "the fox leans right; stays put"), "the fox leans right; stays put")
        self.assertTrue(
            R.front(r, "the fox is moving left and leans far right").startswith("leaning far right, ")
        )
        self.assertGreater(changed_keeping_letters(self, "front"), 40)


if __name__ == "__main__":
    unittest.main()
