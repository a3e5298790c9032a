"""Tests of the batch stream's stage draws and --replay lists (train/nano/stream.py, train.parse).

python3 -m unittest tests/train/test_stream.py -v
"""

from __future__ import annotations

import random
import unittest


class ReplayTest(unittest.TestCase):
    def test_stage_draws(self):
        from train.nano.corpus.curriculum import name_of, stage
        from train.nano.stream import pick_stage

        def draws(*args, **kw):
            """The stages drawn (as their seeds, the numbers they had), stages given by seed."""
            stage_now, mix, *rest = args
            args = [name_of(stage_now), mix, *(name_of(x) for x in rest)]
            if kw.get("replay"):
                kw["replay"] = [name_of(x) for x in kw["replay"]]
            rng = random.Random("r")
            return [stage(pick_stage(rng, *args, **kw)).seed for _ in range(400)]

        # the recipe's expression before --replay-to / --replay existed (and stages had names)
        rng, old = random.Random("r"), []
        for _ in range(400):
            lo = min(9, 13)
            old.append(13 if 13 == lo or rng.random() >= 0.3 else rng.randrange(lo, 13))
        self.assertEqual(draws(13, 0.3, 9), old)
        self.assertEqual(set(draws(13, 0.3, 9)), {9, 10, 11, 12, 13})
        self.assertEqual(set(draws(15, 0.4, 9, 13)), {9, 10, 11, 12, 13, 15})
        self.assertEqual(set(draws(9, 0.3, 9, replay=(16, 15, 9))), {9, 15, 16})
        self.assertEqual(set(draws(9, 0.3, 9)), {9})
        # a range draws only the curriculum's stages (the removed ones' seeds are unused)
        self.assertEqual(set(draws(47, 1.0, 25)), {25, 26, 27, 30, 37})

    def test_bad_replay_list_is_a_usage_error(self):
        import contextlib
        import io

        from train.nano.train import parse

        for bad in ("a,b", "15,99", "chat-plateau,"):
            with self.assertRaises(SystemExit) as e, contextlib.redirect_stderr(io.StringIO()) as err:
                parse(["--run", "x", "--replay", bad])
            self.assertEqual(e.exception.code, 2)
            self.assertIn("--replay", err.getvalue())
        self.assertEqual(parse(["--run", "x", "--replay", "16,15"]).replay, "chat-plateau,easy-chat-words")
        self.assertEqual(
            parse(["--run", "x", "--replay", "chat-plateau,easy-chat-words"]).replay,
            "chat-plateau,easy-chat-words",
        )
        for bad in ("0", "two", "-1"):
            with self.assertRaises(SystemExit) as e, contextlib.redirect_stderr(io.StringIO()) as err:
                parse(["--run", "x", "--threads-later", "f", bad])
            self.assertEqual(e.exception.code, 2)
            self.assertIn("--threads-later", err.getvalue())
        self.assertEqual(parse(["--run", "x", "--threads-later", "f", "2"]).threads_later, ["f", "2"])
        self.assertIsNone(parse(["--run", "x", "--replay", ""]).replay)


if __name__ == "__main__":
    unittest.main()
