"""README.md's Python block runs as it stands (in a scratch folder: it writes a GIF and a trace)."""

from __future__ import annotations

import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def python_blocks() -> list[str]:
    text = (ROOT / "README.md").read_text()
    return re.findall(r"```python\n(.*?)```", text[text.index("## Python") :], re.S)


def run_in(folder: Path, block: str) -> None:
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        exec(compile(block, "README.md", "exec"), {})
    finally:
        os.chdir(cwd)


def test_readme_python_block_runs(gym, tmp_path, capsys):
    run_in(tmp_path, python_blocks()[0])
    assert (tmp_path / "lamp.gif").stat().st_size > 0
    assert len((tmp_path / "lamp.jsonl").read_text().splitlines()) == 6
    assert "episodes passed" in capsys.readouterr().out


def test_readme_task_file_block_runs(gym, tmp_path, capsys):
    (tmp_path / "examples").symlink_to(ROOT / "examples")  # the block's paths are the checkout's
    run_in(tmp_path, python_blocks()[1])
    assert "goal after 13 steps" in capsys.readouterr().out
