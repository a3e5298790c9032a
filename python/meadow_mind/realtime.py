"""Real-time games: the game clock does not wait for the mind.

    from meadow_mind import MeadowMind, realtime, tasks

    r = realtime.run(tasks.parkour(), MeadowMind(), gif="parkour.gif", trace="parkour.jsonl")
    print(r.verdict.text, r.late)            # "cleared 6/6 obstacles (seed 0)", answers too late

The game runs in its own thread and moves on by the seconds that really pass; the mind decides
back to back on the latest state (the GIL is released while it thinks), and an answer that
arrives after its question closed is late and dropped. With ``latency`` set the run is in
simulated time instead: each decision takes that many game seconds, whatever the machine.

A game of your own subclasses ``Game`` (see its docstring) and plays through the same runner,
with the same trace lines, GIF captions and ``LATE`` marks as ``meadow-mind parkour``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import _convert, _core
from .mind import Info, MeadowMind
from .runner import Episode, Step, Verdict, _judge
from .task import Task


class Game:
    """A real-time game written in Python: a world that is a function of game time and poses
    one question (a "challenge") at a time. Override every method but ``render``.

    - ``reset(seed)``: start over; return the first observation (a number or an array).
    - ``clock()``: game seconds since reset.
    - ``advance(seconds)``: move the world on by ``seconds``; return ``(reward, terminated)``.
    - ``act(action)``: apply an option's action now (no time passes); ``(reward, terminated)``.
    - ``challenge()``: the id of the open question, changed whenever it is resolved or
      replaced; -1 once the game is over. An answer is in time when the id it was read under
      is still open when it arrives.
    - ``observe()``: the observation at this instant.
    - ``render()``: an (height, width, 3) uint8 picture for the GIF, or None.

    The runner calls these from one thread at a time.
    """

    def reset(self, seed: int) -> Any:
        raise NotImplementedError

    def clock(self) -> float:
        raise NotImplementedError

    def advance(self, seconds: float) -> tuple[float, bool]:
        raise NotImplementedError

    def act(self, action: Any) -> tuple[float, bool]:
        raise NotImplementedError

    def challenge(self) -> int:
        raise NotImplementedError

    def observe(self) -> Any:
        raise NotImplementedError

    def render(self) -> np.ndarray | None:
        return None


@dataclass
class TimedDecision:
    """When one decision was read and answered, on the game clock."""

    challenge: int
    read_s: float
    answer_s: float
    in_time: bool


@dataclass
class RealtimeRun:
    """One real-time episode: ``steps[i]`` was decided as ``decisions[i]`` says."""

    steps: list[Step]
    decisions: list[TimedDecision]
    verdict: Verdict
    total_reward: float
    late: int
    game_s: float
    p50_ms: float
    p95_ms: float
    simulated: bool
    gif: str | None = None
    gif_frames: int = 0
    trace: str | None = None


class _World:
    """A Game as the C++ runner calls it: plain numbers in and out, an option's index turned
    back into the task's action."""

    def __init__(self, game: Game, task: Task) -> None:
        self.game, self.task = game, task
        self.letters = list(task.options)
        self.shape: tuple[int, ...] = ()

    def reset(self, seed: int) -> list[float]:
        obs = self.game.reset(seed)
        self.shape = np.shape(obs)
        return _convert.to_values(obs)

    def obs_of(self, values: list[float]) -> Any:
        """The runner's snapshot of an observation, in the game's shape again."""
        return float(values[0]) if self.shape == () else np.asarray(values).reshape(self.shape)

    def clock(self) -> float:
        return float(self.game.clock())

    def advance(self, seconds: float) -> tuple[float, bool]:
        reward, terminated = self.game.advance(seconds)
        return float(reward), bool(terminated)

    def act(self, values: list[float]) -> tuple[float, bool]:
        reward, terminated = self.game.act(self.task.action(self.letters[int(values[0])]))
        return float(reward), bool(terminated)

    def challenge(self) -> int:
        return int(self.game.challenge())

    def observe(self) -> list[float]:
        return _convert.to_values(self.game.observe())

    def render(self) -> Any:
        img = self.game.render()
        return None if img is None else np.ascontiguousarray(img, dtype=np.uint8)


def _core_and_perceiver(task: Task, world: _World | None) -> tuple[Any, Callable | None]:
    """The task the runner plays and, for a Python perceiver, the call that writes the sentence."""
    if task._native is not None and world is None:
        return task._native, None
    if task.perceive is None:
        raise ValueError(f"task {task.name} has no perceiver: it cannot be played")
    if world is not None:
        return task.core(), lambda values: task.status(world.obs_of(values))
    space = _core.make_env(task.env_id or "", json.dumps(task.env_kwargs)).observation_space
    return task.core(), lambda values: task.status(_convert.space_value(space, list(values)))


def _latency_of(latency: float | Callable[[Info], float] | None) -> Callable[[Any], float] | None:
    """None (the wall clock), or the game seconds each decision takes."""
    if latency is None:
        return None
    if callable(latency):
        return lambda d: float(latency(Info.from_core(d)))
    seconds = float(latency)
    return lambda d: seconds


def _steps_of(task: Task, episode: Any) -> list[Step]:
    """The native episode's steps as the package's records."""
    letters = list(task.options)
    steps = []
    for s in episode.steps:
        info = Info.from_core(s.decision)
        steps.append(
            Step(
                step=int(s.step),
                status=info.status,
                letter=info.letter,
                probs=info.probs,
                action=task.action(info.letter) if info.letter in letters else list(s.action),
                obs=list(s.obs),
                reward=float(s.reward),
                lat_ms=info.lat_ms,
                conditions=info.conditions,
            )
        )
    return steps


def run(
    task: Task,
    mind: MeadowMind | None = None,
    game: Game | None = None,
    seed: int = 0,
    gif: str | None = None,
    trace: str | None = None,
    latency: float | Callable[[Info], float] | None = None,
    frame_s: float = 0.05,
    time_limit_s: float = 120.0,
    env_kwargs: dict[str, Any] | None = None,
) -> RealtimeRun:
    """Plays one real-time episode: the task's env (``parkour``, ``shapes``) or ``game``.

    Args:
        task: a built-in real-time task (``tasks.parkour()``), or a ``Task`` whose perceiver
            reads ``game``'s observations.
        mind: the mind (default: ``MeadowMind()``).
        game: a ``Game`` of your own; None plays the task's env.
        seed: the game's seed.
        gif, trace: files to write (GIF frame delays are game time; a JSON line per decision).
        latency: None: against the wall clock. A number or ``latency(info) -> seconds``:
            simulated time, each decision taking that many game seconds.
        frame_s: a GIF frame at least this often (and at every event).
        time_limit_s: game seconds after which the run stops.
        env_kwargs: replace the task's env kwargs (e.g. ``{"window": 0.3}`` for shapes).

    Raises:
        ValueError: a task that cannot be played this way, a bad latency or file.
    """
    mind = mind if mind is not None else MeadowMind()
    world = _World(game, task) if game is not None else None
    core, perceive = _core_and_perceiver(task, world)
    lat = _latency_of(latency)
    task.forget()
    try:
        r = _core.run_realtime(
            mind._mind,
            core,
            perceive,
            world,
            int(seed),
            gif or "",
            trace or "",
            lat,
            float(frame_s),
            float(time_limit_s),
            json.dumps(env_kwargs) if env_kwargs is not None else "",
        )
    except _core.MeadowError as e:
        raise ValueError(str(e)) from None
    steps = _steps_of(task, r.episode)
    verdict = Verdict(*r.verdict)
    if task._native is None and task.judge is not None:  # a Python task's own judge
        ep = Episode(
            seed=seed,
            reset_obs=None,
            steps=steps,
            total_reward=float(r.episode.total_reward),
            terminated=bool(r.episode.terminated),
            truncated=bool(r.episode.truncated),
        )
        verdict = _judge(task, ep)
    return RealtimeRun(
        steps=steps,
        decisions=[TimedDecision(d.challenge, d.read_s, d.answer_s, d.in_time) for d in r.decisions],
        verdict=verdict,
        total_reward=float(r.episode.total_reward),
        late=int(r.late),
        game_s=float(r.game_s),
        p50_ms=float(r.p50_ms),
        p95_ms=float(r.p95_ms),
        simulated=bool(r.simulated),
        gif=gif,
        gif_frames=int(r.gif_frames),
        trace=trace,
    )
