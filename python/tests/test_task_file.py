"""Task files from Python: Task.from_file plays as the built-in task does, to_file writes a
file that reads back, and every mistake is a ValueError naming the file, line and field."""

from __future__ import annotations

import os

import pytest

from meadow_mind import Task, run, tasks

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


def shipped(rel: str) -> str:
    return os.path.join(ROOT, rel)


def test_file_and_builtin_decide_alike_on_an_episode(mind):
    from_file = run(Task.from_file(shipped("tasks/mountaincar.toml")), mind=mind, seed=3)[0]
    builtin = run(tasks.mountaincar(), mind=mind, seed=3)[0]
    assert [(s.status, s.letter) for s in from_file.steps] == [(s.status, s.letter) for s in builtin.steps]
    assert from_file.verdict.ok and builtin.verdict.ok


def test_a_game_that_is_not_built_in(mind):
    task = Task.from_file(shipped("examples/tasks/cliffwalking.toml"))
    ok, n = mind.check(task)
    assert ok and n == len(task.sanity)
    ep = run(task, mind=mind)[0]
    assert ep.verdict.ok, ep.verdict.text
    assert len(ep.steps) == 13


def test_reworded_and_written_back(tmp_path, mind):
    task = Task.from_file(shipped("tasks/cartpole.toml"))
    task.rule = "Choose A if the pole is falling left. Choose B if the pole is falling right."
    task.sanity.append(("the pole is falling left and leans far left", "A"))
    path = tmp_path / "cartpole.toml"
    task.to_file(path)
    back = Task.from_file(path)
    assert back.rule == task.rule and back.sanity == task.sanity
    assert back.seeds == task.seeds and back.target == task.target
    assert back.status([0.0, 0.0, 0.05, 0.1]) == task.status([0.0, 0.0, 0.05, 0.1])


def test_code_perceivers_are_written_as_words_only(tmp_path):
    with pytest.raises(ValueError, match="perceiver is code"):
        tasks.frozenlake().to_file(tmp_path / "x.toml")
    py = Task(perceive=lambda obs: "x", rule="If x, choose A.", options={"A": 0}, option_text={"A": "go"})
    with pytest.raises(ValueError, match="words_only=True"):
        py.to_file(tmp_path / "y.toml")
    py.to_file(tmp_path / "y.toml", words_only=True)
    words = Task.from_file(tmp_path / "y.toml")
    assert words.rule == py.rule and words.perceive is None
    with pytest.raises(ValueError, match="no perceive"):
        words.status(0)


@pytest.mark.parametrize(
    "edit, want",
    [
        (("action = 1", "action = 9"), "options[1].action: not an action of CartPole-v1"),
        (('act = "left"', 'acts = "left"'), "options[0].acts: unknown field"),
        (("{side}", "{sid}"), "names {sid}"),
        (('tilt = "abs(angle)"', 'tilt = "abs(angle"'), "perceiver.values.tilt: cannot read"),
    ],
)
def test_mistakes_name_the_line_and_field(tmp_path, edit, want):
    text = open(shipped("tasks/cartpole.toml"), encoding="utf-8").read()
    assert edit[0] in text
    path = tmp_path / "bad.toml"
    path.write_text(text.replace(edit[0], edit[1], 1), encoding="utf-8")
    with pytest.raises(ValueError, match="bad.toml:[0-9]+:[0-9]+: ") as e:
        Task.from_file(path)
    assert want in str(e.value)
