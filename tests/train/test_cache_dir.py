"""train/common/cache_dir.py and train/common/cache_env.sh name the same training cache (issue 46):
$XDG_CACHE_HOME/meadow-mind/train, else ~/.meadow-mind/train, checkpoints/ under it.

    python3 -m unittest discover -s tests/train -p 'test_cache_dir.py' -v
"""

from __future__ import annotations

import os
import subprocess
import unittest
from unittest import mock

from tests.train.helpers import ROOT
from train.common import cache_dir


def shell(env: dict) -> tuple[str, str]:
    r = subprocess.run(
        ["bash", "-c", '. train/common/cache_env.sh && printf "%s\\n%s" "$TRAIN_CACHE" "$CHECKPOINTS"'],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    if r.returncode:
        raise AssertionError(r.stderr)
    cache, ckpts = r.stdout.split("\n")
    return cache, ckpts


class CacheDirTest(unittest.TestCase):
    def test_shell_and_python_agree(self):
        base = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        cases = (
            ({"XDG_CACHE_HOME": "/x/cache", "HOME": "/h"}, "/x/cache/meadow-mind/train"),
            ({"XDG_CACHE_HOME": "", "HOME": "/h"}, "/h/.meadow-mind/train"),  # empty is unset
            ({"HOME": "/h"}, "/h/.meadow-mind/train"),
        )
        for env, want in cases:
            with self.subTest(env=env):
                env = dict(base, **env)
                with mock.patch.dict(os.environ, env, clear=True):
                    got = (cache_dir.train_cache(), cache_dir.checkpoints_dir())
                self.assertEqual(got, (want, want + "/checkpoints"))
                self.assertEqual(shell(env), got)

    def test_neither_set_is_an_error(self):
        with mock.patch.dict(os.environ, {}, clear=True):
            with self.assertRaises(OSError):
                cache_dir.train_cache()
        r = subprocess.run(
            ["bash", "-c", ". train/common/cache_env.sh"],
            cwd=ROOT,
            env={"PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
            timeout=30,
        )
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("neither XDG_CACHE_HOME nor HOME is set", r.stderr)


if __name__ == "__main__":
    unittest.main()
