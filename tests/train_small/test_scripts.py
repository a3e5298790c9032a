"""meadow-small's scripts answer a missing input with one line and exit 2, not a traceback.

python3 -m unittest discover -s tests/train_small -v
"""

from __future__ import annotations

import os
import subprocess
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(*args):
    env = dict(os.environ, PYTHONPATH=ROOT)
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, env=env, capture_output=True, text=True)


class MissingInput(unittest.TestCase):
    def test_release_without_checkpoint(self):
        p = run("train.small.release", "/nonexistent/ckpt.pt")
        self.assertEqual(p.returncode, 2)
        self.assertEqual(p.stderr.strip(), "release: no checkpoint at /nonexistent/ckpt.pt")

    def test_evaluate_without_set(self):
        p = run("train.small.evaluate", "/nonexistent/set.jsonl")
        self.assertEqual(p.returncode, 2)
        self.assertIn("evaluate: no such file: /nonexistent/set.jsonl", p.stderr)

    def test_train_without_base(self):
        p = run("train.small.train", "--base", "/nonexistent/base.gguf", "--out", "/nonexistent/run")
        self.assertEqual(p.returncode, 2)
        self.assertIn("base model not found: /nonexistent/base.gguf", p.stderr)


if __name__ == "__main__":
    unittest.main()
