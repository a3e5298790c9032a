"""README.md's Python block runs as it stands (in a scratch folder: it writes a GIF and a trace)."""

from __future__ import annotations

import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_readme_python_block_runs(gym, tmp_path, capsys):
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Python") :]
    block = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        exec(compile(block, "README.md", "exec"), {})
    finally:
        os.chdir(cwd)
    assert (tmp_path / "lamp.gif").stat().st_size > 0
    assert len((tmp_path / "lamp.jsonl").read_text().splitlines()) == 6
    assert "episodes passed" in capsys.readouterr().out


def test_readme_task_file_block_runs(gym, tmp_path, capsys):
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Python") :]
    block = re.findall(r"```python\n(.*?)```", section, re.S)[1]
    (tmp_path / "examples").symlink_to(ROOT / "examples")  # the block's paths are the checkout's
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        exec(compile(block, "README.md", "exec"), {})
    finally:
        os.chdir(cwd)
    assert "goal after 13 steps" in capsys.readouterr().out
