"""The package's surface: the original README's snippet, python -m meadow_mind, the AI prompt,
runs with GIF and trace, and our envs' Gymnasium signatures."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import meadow_mind
from meadow_mind import AI_PROMPT, ai_prompt, envs, run, tasks


def test_original_readme_snippet_with_gymnasium(gym):
    env = gym.make("MountainCar-v0")
    obs, _ = env.reset(seed=0)
    from meadow_mind import MeadowMind, tasks  # noqa: F811 (as the snippet reads)

    mind = MeadowMind()  # loads once, runs on-device
    task = tasks.mountaincar()
    mind.check(task)  # sanity gate: decision-table exam
    action, info = mind.decide(task, obs)  # obs in, env action out
    assert env.action_space.contains(action)
    env.step(action)


def test_python_m_meadow_mind_runs_the_command_line():
    out = subprocess.run([sys.executable, "-m", "meadow_mind", "list"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    for name in tasks.names():
        assert name in out.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "meadow_mind", "no-such-command"], capture_output=True, text=True
    )
    assert bad.returncode == 2 and bad.stderr


def test_ai_prompt():
    assert ai_prompt() == AI_PROMPT and "mind.check(task)" in AI_PROMPT and "Task(" in AI_PROMPT
    cpp = ai_prompt("cpp")
    assert "meadow::Task" in cpp and "meadow::Task" not in AI_PROMPT and "option_text=" not in cpp
    # One text: the steps' shared prose is in both guides.
    assert "never print raw floats as the only information" in cpp
    assert "never print raw floats as the only information" in AI_PROMPT
    with pytest.raises(meadow_mind.MeadowError, match="no guide for 'rust'"):
        ai_prompt("rust")


def test_ai_prompt_example_runs(tmp_path, monkeypatch):
    """The guide's complete example is code an agent can copy: it passes the exam and balances."""
    example = AI_PROMPT.split("## Complete example", 1)[1]
    code = "\n".join(line[4:] for line in example.splitlines() if line.startswith("    ") or not line)
    monkeypatch.chdir(tmp_path)
    scope: dict = {}
    exec(compile(code, "agent_guide_example", "exec"), scope)
    assert scope["task"].rule.startswith("If the pole leans")
    assert scope["terminated"] is False


def test_public_names():
    for name in meadow_mind.__all__:
        assert getattr(meadow_mind, name).__doc__, name


def test_env_signatures():
    env = envs.make("CartPole-v1")
    obs, info = env.reset(seed=1)
    assert isinstance(obs, np.ndarray) and obs.dtype == np.float32 and obs.shape == (4,)
    assert isinstance(info, dict)
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
    assert isinstance(reward, float) and isinstance(terminated, bool) and isinstance(truncated, bool)
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.shape == (400, 600, 3)
    lake = envs.make("FrozenLake-v1", map_name="8x8")
    obs, _ = lake.reset(seed=0)
    assert isinstance(obs, int) and isinstance(lake.observation_space, envs.Discrete)
    assert "CartPole-v1" in envs.registry() and envs.registry()["CartPole-v1"].max_episode_steps == 500


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: envs.make("NoSuchEnv-v0"), "NoSuchEnv"),
        (lambda: envs.make("CartPole-v1", no_such_kwarg=1), "no_such_kwarg"),
        (lambda: envs.make("FrozenLake-v1", map_name=3), "map_name"),
        (lambda: envs.make("CartPole-v1").step(0), "reset"),
        (lambda: _reset(envs.make("CartPole-v1")).step(5), "action"),
        (lambda: _reset(envs.make("CartPole-v1")).step([0, 1]), "action"),
        (lambda: envs.make("CartPole-v1").reset(seed=-1), "seed"),
    ],
)
def test_env_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def _reset(env):
    env.reset(seed=0)
    return env


def test_run_writes_gif_and_trace(mind, tmp_path):
    gif, trace = tmp_path / "lake.gif", tmp_path / "lake.jsonl"
    eps = run(tasks.frozenlake(), mind=mind, gif=str(gif), trace=str(trace))
    ep = eps[0]
    assert eps.verdict.ok and ep.verdict.ok, ep.verdict
    assert gif.read_bytes()[:6] == b"GIF89a"
    lines = [json.loads(x) for x in trace.read_text().splitlines()]
    assert len(lines) == len(ep.steps) and lines[0]["status"] == ep.steps[0].status
    assert set(lines[0]) >= {"step", "status", "letter", "probs", "action", "reward", "lat_ms"}


def test_run_on_gymnasium_env_with_gif(gym, mind, tmp_path):
    env = gym.make("FrozenLake-v1", map_name="8x8", is_slippery=False, render_mode="rgb_array")
    gif = tmp_path / "gym.gif"
    eps = run(tasks.frozenlake(), env=env, mind=mind, gif=str(gif))
    assert eps.verdict.ok and gif.stat().st_size > 0
    with pytest.raises(ValueError, match="rgb_array"):
        run(
            tasks.frozenlake(),
            env=gym.make("FrozenLake-v1", map_name="8x8", is_slippery=False),
            mind=mind,
            gif=str(tmp_path / "x.gif"),
        )


def test_unwritable_gif_is_a_clear_error(mind, tmp_path):
    with pytest.raises(ValueError):
        run(tasks.frozenlake(), mind=mind, gif=str(tmp_path / "no" / "such" / "dir" / "x.gif"))


def test_a_failed_episode_leaves_the_files_as_they_were(mind, tmp_path):
    gif, trace = tmp_path / "keep.gif", tmp_path / "keep.jsonl"
    gif.write_bytes(b"old gif")
    trace.write_text("old trace")
    calls = [0]
    base = tasks.frozenlake()

    def perceive(obs):
        calls[0] += 1
        if calls[0] == 3:
            raise RuntimeError("sensor broke")
        return base.status(obs)

    from meadow_mind import Task

    task = Task(
        perceive=perceive,
        rule=base.rule,
        options=base.options,
        option_text=base.option_text,
        env_id=base.env_id,
        env_kwargs=base.env_kwargs,
    )
    with pytest.raises(RuntimeError, match="sensor broke"):
        run(task, mind=mind, gif=str(gif), trace=str(trace))
    assert gif.read_bytes() == b"old gif" and trace.read_text() == "old trace"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.gif", "keep.jsonl"]


def test_trace_never_destroys_what_was_there(mind, tmp_path):
    """The trace goes through the C++ writer: an existing NAME.tmp, a symlink at NAME.tmp, a
    device and a folder given as the path all stay what they were."""
    trace = tmp_path / "t.jsonl"
    (tmp_path / "t.jsonl.tmp").write_text("user file")
    target = tmp_path / "victim.txt"
    target.write_text("victim")
    (tmp_path / "t2.jsonl.tmp").symlink_to(target)
    run(tasks.frozenlake(), mind=mind, trace=str(trace))
    run(tasks.frozenlake(), mind=mind, trace=str(tmp_path / "t2.jsonl"))
    assert (tmp_path / "t.jsonl.tmp").read_text() == "user file"
    assert target.read_text() == "victim" and (tmp_path / "t2.jsonl.tmp").is_symlink()
    lines = [json.loads(x) for x in trace.read_text().splitlines()]
    assert lines and set(lines[0]) == {
        "step",
        "status",
        "letter",
        "probs",
        "action",
        "act",
        "reward",
        "lat_ms",
    }
    assert lines[0]["act"] == tasks.frozenlake().act_label(lines[0]["letter"])
    # A device is written in place, never replaced by a regular file.
    run(tasks.frozenlake(), mind=mind, trace="/dev/null")
    assert os.path.exists("/dev/null") and not os.path.isfile("/dev/null")
    # A folder is an error, and nothing is left beside it.
    folder = tmp_path / "dir"
    folder.mkdir()
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(ValueError, match="folder"):
        run(tasks.frozenlake(), mind=mind, trace=str(folder))
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_trace_lines_match_the_cli(mind, tmp_path):
    """One trace writer: the Python runner's lines have the CLI's keys in the CLI's order."""
    py_trace, cli_trace = tmp_path / "py.jsonl", tmp_path / "cli.jsonl"
    run(tasks.frozenlake(), mind=mind, trace=str(py_trace))
    cli = [
        sys.executable,
        "-m",
        "meadow_mind",
        "play",
        "frozenlake",
        "--model",
        "nano",
        "--trace",
        str(cli_trace),
    ]
    subprocess.run(cli, check=True, capture_output=True, cwd=tmp_path)
    py = [json.loads(x) for x in py_trace.read_text().splitlines()]
    c = [json.loads(x) for x in cli_trace.read_text().splitlines()]
    assert [list(x) for x in py] == [list(x) for x in c]
    assert [(x["letter"], x["act"], x["action"]) for x in py] == [
        (x["letter"], x["act"], x["action"]) for x in c
    ]


def test_envs_are_documented_for_help():
    import pydoc

    env = envs.make("FrozenLake-v1", map_name="4x4")
    page = pydoc.render_doc(env, renderer=pydoc.plaintext)
    for section in ("Action space:", "Observation space:", "Rewards:", "Episode end:", "Arguments:"):
        assert section in page
    assert isinstance(env, envs.Env) and envs.doc("FrozenLake-v1") == type(env).__doc__
    assert all(spec.doc.startswith(spec.id) for spec in envs.registry().values())
    with pytest.raises(ValueError, match="unknown env id"):
        envs.doc("FrozenLake-v9")


def test_no_import_cycle():
    """The package's modules import each other without a cycle (issue 61): `from . import x` of a
    module counts as that module, of a name as the package's __init__; the extension is no module."""
    import ast
    import pathlib

    src = pathlib.Path(meadow_mind.__file__).resolve().parent
    names = {p.stem for p in src.glob("*.py")}
    edges = {}
    for p in src.glob("*.py"):
        deps = set()
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                targets = [node.module] if node.module else [a.name for a in node.names]
                deps |= {t if t in names else "__init__" for t in targets if t != "_core"}
        edges[p.stem] = deps - {p.stem}

    def reaches(start, goal, seen=()):
        return any(
            d == goal or (d not in seen and reaches(d, goal, (*seen, d))) for d in edges.get(start, ())
        )

    assert [m for m in edges if reaches(m, m)] == []
