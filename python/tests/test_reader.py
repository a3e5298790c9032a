"""A meadow-reader from Python: the reading, each decision's conditions, the exam's refusals.

The reader is all-MiniLM-L6-v2 from the pinned wheel with seeded random heads
(train/reader/export.py random): what it reads is arbitrary, so these tests check the plumbing
and the invariants every reading keeps, not its quality. Skips when the wheel is not in the
model cache (scripts/fetch_models.sh).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from meadow_mind import MeadowMind, Task

ROOT = Path(__file__).resolve().parents[2]
RULE = "If the kettle whistles, choose A. If the toast pops up, choose B. Otherwise C."
OPTIONS = {"A": ("pour the tea", 0), "B": ("butter the toast", 1), "C": ("wait", 2)}


def _base_source() -> str | None:
    pin = json.loads((ROOT / "models" / "pins.json").read_text())["minilm-l6"]
    xdg = os.environ.get("XDG_CACHE_HOME")
    cache = Path(xdg) / "meadow-mind" / "models" if xdg else Path.home() / ".meadow-mind" / "models"
    wheel = cache / "wheels" / pin["wheel"]
    return f"{wheel}:{pin['member']}" if wheel.is_file() else None


@pytest.fixture(scope="module")
def reader(tmp_path_factory) -> MeadowMind:
    source = _base_source()
    if source is None:
        pytest.skip("the all-MiniLM-L6-v2 wheel is not in the model cache (scripts/fetch_models.sh)")
    out = tmp_path_factory.mktemp("reader") / "random_reader.gguf"
    subprocess.run(
        # seed 4: heads that happen to give both of cartpole's options a condition (the trace test)
        [
            sys.executable,
            "-m",
            "train.reader.export",
            "random",
            source,
            str(out),
            "--reading",
            "rule",
            "--seed",
            "4",
        ],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    return MeadowMind(str(out))


def _task(rule: str = RULE) -> Task:
    return Task(
        lambda obs: "A shrill whistle comes from the stove.",
        rule,
        OPTIONS,
        sanity={"The kettle whistles on the stove.": "A", "Nothing happens.": "C"},
    )


def test_a_reader_says_how_it_read_the_rule(reader):
    assert reader.arch == "bert"
    reading = reader.reading(_task())
    assert isinstance(reading, str)
    for letter, (text, _) in OPTIONS.items():
        assert f'{letter} "{text}"' in reading


def test_each_decision_carries_the_conditions_it_read(reader):
    action, info = reader.decide(_task(), None)
    assert info.letter in OPTIONS and action == OPTIONS[info.letter][1]
    assert info.status == "A shrill whistle comes from the stove."
    assert abs(sum(info.probs.values()) - 1.0) < 1e-9
    for c in info.conditions:
        assert set(c) == {"letter", "text", "p"}
        assert c["letter"] in OPTIONS and c["text"].startswith('"') and 0.0 <= c["p"] <= 1.0
    # the reading names a condition for exactly the options the decision reports conditions of
    reading = reader.reading(_task())
    for letter, (text, _) in OPTIONS.items():
        named = f'{letter} "{text}" if ' in reading
        assert named == any(c["letter"] == letter for c in info.conditions), reading


def test_the_exam_shows_the_reading_or_refuses_an_option_it_cannot_choose(reader):
    task = _task()
    reading = reader.reading(task)
    if "(never: no condition names it)" in reading:
        with pytest.raises(ValueError, match="the reader found no condition for"):
            reader.exam(task)
    else:
        r = reader.exam(task)
        assert r.reading == reading and r.table.startswith("how the rule was read:")


def test_a_trace_carries_each_decisions_conditions(reader, tmp_path):
    from meadow_mind import envs, run, tasks

    trace = tmp_path / "trace.jsonl"
    task = tasks.cartpole()
    try:
        reader.reading(task)
    except ValueError:
        pytest.skip("this random reader cannot read cartpole's rule")
    if "(never: no condition names it)" in reader.reading(task):
        pytest.skip("this random reader names no condition for an option of cartpole")
    run(task, mind=reader, env=envs.make("CartPole-v1"), seed=0, trace=str(trace))
    first = json.loads(trace.read_text().splitlines()[0])
    assert first["conditions"], first  # every option has a condition (else skipped above)
    assert all(c["letter"] in ("A", "B") and 0.0 <= c["p"] <= 1.0 for c in first["conditions"])


def test_what_a_reader_has_not_is_a_clear_error(reader):
    with pytest.raises(ValueError, match="a meadow-reader takes no LoRA adapter"):
        MeadowMind(reader.model_path, lora="adapter.gguf")
