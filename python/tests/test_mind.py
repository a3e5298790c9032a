"""MeadowMind from Python: decisions, exams, threads, and agreement with the C++ command."""

from __future__ import annotations

import json
import math
import os
import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from meadow_mind import ExamFailed, MeadowMind, Task, envs, run, tasks

ROOT = Path(__file__).resolve().parents[2]


def test_decide_returns_action_and_info(mind):
    task = tasks.cartpole()
    obs, _ = envs.make("CartPole-v1").reset(seed=3)
    action, info = mind.decide(task, obs)
    assert isinstance(action, int) and action in (0, 1)
    assert set(info) == {
        "status",
        "letter",
        "probs",
        "margin",
        "entropy",
        "coherence",
        "lat",
        "lat_ms",
        "conditions",
    }
    assert info.conditions == []  # meadow-nano answers the letter directly
    assert info.letter in ("A", "B") and info["letter"] == info.letter
    assert math.isclose(sum(info.probs.values()), 1.0, rel_tol=1e-6)
    assert info.lat == pytest.approx(info.lat_ms / 1000)
    assert info.status.startswith("The pole") or info.status


def test_decide_batch_equals_one_at_a_time(mind):
    task = tasks.cartpole()
    env = envs.make("CartPole-v1")
    observations = [env.reset(seed=s)[0] for s in range(6)]
    batch = mind.decide_batch(task, observations)
    assert len(batch) == len(observations)
    for obs, (action, info) in zip(observations, batch):
        one_action, one = mind.decide(task, obs)
        assert action == one_action and info.letter == one.letter and info.status == one.status
        for letter, p in one.probs.items():
            assert info.probs[letter] == pytest.approx(p, abs=1e-5)
    assert mind.decide_batch(task, []) == []


def test_box_actions_are_float32_arrays(mind):
    task = tasks.lunarlander()
    assert all(isinstance(a, int) for a in task.options.values())  # LunarLander-v3 is Discrete
    for name in tasks.names():
        t = tasks.get(name)
        space = envs.make(t.env_id, **t.env_kwargs).action_space
        for a in t.options.values():
            if isinstance(space, envs.Box):
                assert isinstance(a, np.ndarray) and a.dtype == np.float32
            else:
                assert isinstance(a, int)


def test_observations_from_lists_tuples_and_arrays(mind):
    task = tasks.cartpole()
    obs = [0.01, 0.2, -0.03, -0.4]
    letters = {mind.decide(task, o)[1].letter for o in (obs, tuple(obs), np.array(obs, dtype=np.float32))}
    assert len(letters) == 1


def test_builtin_exams_pass(mind):
    for name in tasks.names():
        ok, n_right = mind.check(tasks.get(name))
        assert ok and n_right >= len(tasks.get(name).sanity) - 1


def test_failing_exam_raises_with_every_miss(mind):
    # The words say one thing, the exam expects the opposite: every item misses.
    task = Task(
        perceive=None,
        rule="If the pole leans or falls to the left, choose A; if it leans or falls to the right, choose B.",
        options={"A": 0, "B": 1},
        option_text={"A": "push the cart to the left", "B": "push the cart to the right"},
        sanity=[
            ("The pole leans to the left and falls fast.", "B"),
            ("The pole leans to the right and falls fast.", "A"),
            ("The pole leans to the left and falls slowly.", "B"),
        ],
        name="backwards",
    )
    with pytest.raises(ExamFailed) as e:
        mind.check(task)
    r = e.value.result
    assert not r.ok and r.n_total == 3 and len(r.misses) == 3 - r.n_right
    for status, expected, got in r.misses:
        assert status in str(e.value) and got.letter != expected
    assert "FAIL" in str(e.value) and "FAIL" in r.table


def test_unknown_option_and_missing_model():
    with pytest.raises(TypeError, match="unknown option"):
        MeadowMind(temperature=0.3)
    with pytest.raises(ValueError, match="no-such-model"):
        MeadowMind("/nonexistent/no-such-model.gguf")


def test_margins_out_of_range_fail_when_the_mind_is_made(mind):
    for bad in ({"exit_margin": 1.5}, {"float_recheck": -0.1}):
        with pytest.raises(ValueError, match="margin must be in"):
            MeadowMind(mind.model_path, **bad)
    # meadow-nano multiplies in float: the re-check margin cannot change its answers.
    task = tasks.cartpole()
    always = MeadowMind(mind.model_path, float_recheck=1.0)
    for status, _ in task.sanity[:3]:
        got = always.decide_status(task, status).probs
        assert got == pytest.approx(mind.decide_status(task, status).probs, abs=1e-9)


def test_same_decision_as_the_command_line(mind):
    task = tasks.cartpole()
    status = task.sanity[0][0]
    info = mind.decide_status(task, status)
    cli = Path(os.environ.get("MEADOW_CLI", ROOT / "build" / "meadow-mind"))
    if not cli.exists():
        pytest.skip(f"no {cli}")
    args = [str(cli), "decide", "--rule", task.rule, "--state", status, "--json", "--model", mind.model_path]
    for letter, text in task.option_text.items():
        args += ["--option", f"{letter}={text}"]
    out = subprocess.run(args, capture_output=True, text=True, check=True)
    got = json.loads(out.stdout)
    assert got["letter"] == info.letter
    for letter, p in info.probs.items():
        assert got["probs"][letter] == pytest.approx(p, abs=1e-6)


def test_threads_share_one_mind(mind):
    task = tasks.cartpole()
    statuses = [s for s, _ in task.sanity] * 4
    serial = [mind.decide_status(task, s).probs for s in statuses]
    with ThreadPoolExecutor(4) as pool:
        parallel = list(pool.map(lambda s: mind.decide_status(task, s).probs, statuses))
    for a, b in zip(serial, parallel):
        assert a == pytest.approx(b, abs=1e-6)


def test_gil_is_released_during_decisions(mind):
    # While another thread is inside one long C++ call (a 200-item exam), this thread keeps
    # running Python: with the GIL held the counter could not move during the call.
    task = tasks.cartpole()
    big = Task(
        perceive=None,
        rule=task.rule,
        options=task.options,
        option_text=task.option_text,
        sanity=list(task.sanity) * 40,
    )
    mind.exam(big)  # warm the table's prefix cache
    counter = [0]
    during = []

    def worker():
        before = counter[0]
        mind.exam(big)
        during.append(counter[0] - before)

    t = threading.Thread(target=worker)
    t.start()
    while t.is_alive():
        counter[0] += 1
    t.join()
    assert during[0] > 0


def test_a_new_python_task_passes_its_exam_and_plays(mind):
    # A walker on our FrozenLake 4x4 (lamp at the goal) with words of its own: the sentence
    # names the open way toward the lamp and the distance; the rule says to walk toward it.
    route = {0: "east", 1: "east", 2: "south", 6: "south", 10: "south", 14: "east"}

    def perceive(obs):
        row, col = divmod(int(obs), 4)
        steps = (3 - row) + (3 - col)
        return f"the lamp lies {route.get(int(obs), 'south')}, {steps} step{'s' if steps != 1 else ''} away"

    task = Task(
        perceive=perceive,
        rule="Walk toward the lamp.",
        options={"A": 2, "B": 1},
        option_text={"A": "walk east", "B": "walk south"},
        act_text={"A": "east", "B": "south"},
        sanity=[
            ("the lamp lies east, 6 steps away", "A"),
            ("the lamp lies south, 5 steps away", "B"),
            ("the lamp lies east, 1 step away", "A"),
            ("the lamp lies south, 2 steps away", "B"),
        ],
        env_id="FrozenLake-v1",
        env_kwargs={"map_name": "4x4", "is_slippery": False},
        judge=lambda ep: (ep.total_reward == 1.0, f"reward {ep.total_reward}"),
        name="lamp-lake",
    )
    assert mind.check(task) == (True, 4)
    eps = run(task, mind=mind, seed=0)
    assert eps.verdict.ok, [s.status for s in eps[0].steps]
    assert len(eps[0].steps) == 6


def test_generate_and_draft(mind):
    g = mind.generate("The pole leans left. What now?", max_tokens=8, block=4)
    assert g.finish_reason in ("stop", "length") and len(g.tokens) <= 8 and g.prompt_tokens > 0
    assert mind.generate("The pole leans left. What now?", max_tokens=8, block=4).tokens == g.tokens
    nocache = mind.generate("The pole leans left. What now?", max_tokens=8, block=4, cache=False)
    assert nocache.text == g.text
    d = mind.draft([{"role": "user", "content": "Say hello."}], length=5)
    assert len(d.confidence) == 5 and 0 < d.coherence <= 1
    with pytest.raises(ValueError, match="top_p"):
        mind.generate("x", top_p=0)
    with pytest.raises(ValueError, match="confidence"):
        mind.generate("x", confidence="loud")
    with pytest.raises(TypeError):
        mind.generate([{"role": "user"}])


def test_a_huge_thread_count_is_an_error_not_an_abort(mind):
    """The cap lives in the library (meadow::model::kMaxThreads): the bindings meet it too."""
    with pytest.raises(ValueError, match="threads"):
        MeadowMind("nano", threads=100000)
    with pytest.raises(ValueError, match="threads"):
        mind.generate("x", max_tokens=2, threads=100000)
    assert mind.generate("x", max_tokens=2, threads=256).tokens is not None


def test_generate_refuses_what_the_server_refuses(mind):
    """One validation (meadow/generate.hpp) for the server and the package."""
    with pytest.raises(ValueError, match="role"):
        mind.generate([{"role": "wizard", "content": "hi"}], max_tokens=2)
    with pytest.raises(ValueError, match="stop"):
        mind.generate("x", max_tokens=2, stop=[""])
    with pytest.raises(ValueError, match="stop"):
        mind.generate("x", max_tokens=2, stop=[str(i) for i in range(17)])
    with pytest.raises(ValueError, match="temperature"):
        mind.generate("x", max_tokens=2, temperature=2.5)
    assert mind.generate([{"role": "developer", "content": "hi"}], max_tokens=2).tokens is not None
