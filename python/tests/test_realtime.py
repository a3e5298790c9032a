"""Real-time play from Python: the built-in games and a Python game through the one C++ runner,
in simulated time (a slow mind misses, a fast one hits, whatever the machine) and against the
wall clock (the same trace lines and GIF)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from meadow_mind import Task, realtime, tasks


class Lights(realtime.Game):
    """A light shows red or green for `window` seconds, then the next after a dark `gap`; press
    its colour while it shows (reward 1). Five lights, then the game is over."""

    def __init__(self, window: float = 0.3, gap: float = 0.2, n: int = 5) -> None:
        self.window, self.gap, self.n = window, gap, n

    def reset(self, seed):
        self.rng = np.random.default_rng(seed)
        self.colours = self.rng.integers(1, 3, self.n)
        self.t, self.i, self.hit = 0.0, 0, False
        return self.observe()

    def _phase(self):
        period = self.window + self.gap
        i, into = int(self.t // period), self.t % period
        return i, into < self.window

    def clock(self):
        return self.t

    def advance(self, seconds):
        self.t += seconds
        i, _ = self._phase()
        if i != self.i:
            self.i, self.hit = i, False
        return 0.0, self.i >= self.n

    def act(self, action):
        i, lit = self._phase()
        if action == 0 or not lit or self.hit or i >= self.n:
            return 0.0, False
        self.hit = True
        return (1.0 if action == self.colours[i] else 0.0), False

    def challenge(self):
        i, lit = self._phase()
        if i >= self.n:
            return -1
        return 2 * i + (0 if lit and not self.hit else 1)

    def observe(self):
        i, lit = self._phase()
        return 0 if i >= self.n or not lit or self.hit else int(self.colours[i])

    def render(self):
        img = np.zeros((32, 32, 3), np.uint8)
        img[:, :, self.observe() - 1] = 255 if self.observe() else 0
        return img


def lights_task() -> Task:
    words = {0: "the light is off", 1: "the light is red", 2: "the light is green"}
    return Task(
        perceive=lambda obs: words[int(obs)],
        rule="If the light is red, choose A. If the light is green, choose B. If the light is off, choose C.",
        options={"A": 1, "B": 2, "C": 0},
        option_text={"A": "press the red button", "B": "press the green button", "C": "wait"},
        sanity=[(words[1], "A"), (words[2], "B"), (words[0], "C")],
        name="lights",
    )


def test_builtin_games_in_simulated_time(mind):
    fast = realtime.run(tasks.parkour(), mind, latency=0.005)
    assert fast.simulated and fast.verdict.ok, fast.verdict.text
    slow = realtime.run(tasks.parkour(), mind, latency=3.0)
    assert not slow.verdict.ok
    assert slow.decisions and all(not d.in_time for d in slow.decisions)
    assert slow.late == len(slow.decisions) == len(slow.steps)


def test_a_python_game_fast_hits_slow_misses(mind):
    task = lights_task()
    mind.check(task)
    fast = realtime.run(task, mind, game=Lights(), latency=0.01)
    assert fast.total_reward == 5.0, [(s.status, s.letter) for s in fast.steps]
    slow = realtime.run(task, mind, game=Lights(), latency=lambda info: 0.35)
    assert slow.total_reward == 0.0
    assert all(not d.in_time for d in slow.decisions if d.challenge % 2 == 0)
    for s, d in zip(fast.steps, fast.decisions):
        assert abs(d.answer_s - d.read_s - 0.01) < 1e-9 or not d.in_time


def test_a_python_game_against_the_wall_clock(mind, tmp_path):
    gif, trace = tmp_path / "lights.gif", tmp_path / "lights.jsonl"
    r = realtime.run(
        lights_task(), mind, game=Lights(window=1.0, gap=0.2, n=2), gif=str(gif), trace=str(trace)
    )
    assert not r.simulated and r.game_s >= 2.4
    lines = [json.loads(line) for line in trace.read_text().splitlines()]
    assert len(lines) == len(r.steps) == len(r.decisions) > 0
    assert {"challenge", "read_s", "answer_s", "in_time", "status", "letter"} <= set(lines[0])
    assert gif.stat().st_size > 0 and r.gif_frames > 1
    assert any(d.in_time for d in r.decisions)


def test_bad_use_is_a_value_error(mind):
    with pytest.raises(ValueError, match="not a real-time game"):
        realtime.run(tasks.cartpole(), mind, latency=0.01)
    with pytest.raises(ValueError, match="latency"):
        realtime.run(tasks.parkour(), mind, latency=-1.0)
    examined_only = Task(perceive=None, rule="If x, choose A.", options={"A": 0}, option_text={"A": "go"})
    with pytest.raises(ValueError, match="no perceiver"):
        realtime.run(examined_only, mind, game=Lights(), latency=0.01)


def test_a_game_that_raises_stops_the_run_with_its_error(mind):
    class Broken(Lights):
        def advance(self, seconds):
            if self.t > 0.5:
                raise RuntimeError("the game broke")
            return super().advance(seconds)

    for latency in (0.01, None):
        with pytest.raises(RuntimeError, match="the game broke"):
            realtime.run(lights_task(), mind, game=Broken(), latency=latency)
