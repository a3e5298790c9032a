"""Playing episodes: reset, then decide and step until the episode ends, with an optional GIF
(the status sentence and the choice under each frame), a JSONL trace and a verdict.

Works on our environments (the default, from the task's env_id) and on any env with
Gymnasium's API (pass ``env=gymnasium.make(..., render_mode="rgb_array")`` for GIFs).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import _convert, _core, envs
from .mind import Info, MeadowMind
from .task import Task


@dataclass
class Step:
    """One decision of an episode and the step it made."""

    step: int
    status: str
    letter: str
    probs: dict[str, float]
    action: Any
    obs: Any  # the observation after the step
    reward: float
    lat_ms: float
    # a meadow-reader's conditions with P(holds) (Info's "conditions"); empty for other models
    conditions: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Verdict:
    ok: bool
    text: str


@dataclass
class Episode:
    """One played episode and its verdict."""

    seed: int | None
    reset_obs: Any
    steps: list[Step] = field(default_factory=list)
    total_reward: float = 0.0
    terminated: bool = False
    truncated: bool = False
    verdict: Verdict = field(default_factory=lambda: Verdict(True, ""))
    p50_ms: float = 0.0
    p95_ms: float = 0.0
    loop_hint: str | None = None
    gif: str | None = None
    trace: str | None = None


class Episodes(list):
    """The episodes of one ``run``, with the verdict over all of them (``verdict``): a built-in
    task's target across its seeds, else every episode's own verdict."""

    verdict: Verdict


def _numbered(path: str | None, i: int, n: int) -> str | None:
    if path is None or n == 1:
        return path
    root, ext = os.path.splitext(path)
    return f"{root}-{i}{ext}"


def _core_step(s: Step, with_obs: bool = True) -> Any:
    # A trace line has no observation: any env's, numeric or not, can be traced.
    return _core.EpisodeStep(
        s.step,
        s.status,
        s.letter,
        _convert.to_values(s.action, "action"),
        _convert.to_values(s.obs) if with_obs else [],
        float(s.reward),
        s.lat_ms,
        list(s.probs.items()),
        [(c["letter"], c["text"], c["p"]) for c in s.conditions],
    )


def _core_episode(ep: Episode) -> Any:
    steps = [_core_step(s) for s in ep.steps]
    return _core.Episode(
        ep.seed or 0, _convert.to_values(ep.reset_obs), steps, ep.total_reward, ep.terminated, ep.truncated
    )


def _judge(task: Task, ep: Episode) -> Verdict:
    if task.judge is not None:
        v = task.judge(ep)
        if isinstance(v, Verdict):
            return v
        if isinstance(v, tuple) and len(v) == 2:
            return Verdict(bool(v[0]), str(v[1]))
        return Verdict(bool(v), "passed" if v else "failed")
    if task._native is not None and task._native.has_judge:
        ok, text = task._native.judge(_core_episode(ep))
        return Verdict(ok, text)
    return Verdict(True, f"played {len(ep.steps)} steps")


def _state_key(task: Task, obs: Any) -> Any:
    if task.mem_key is not None:
        return task.mem_key(obs)
    if task._native is not None and task.memory:
        return None
    return tuple(_convert.to_values(obs))


def play(
    task: Task,
    mind: MeadowMind,
    env: Any,
    seed: int | None = None,
    gif: str | None = None,
    trace: str | None = None,
    max_steps: int | None = None,
    gif_delay_ms: int = 50,
    loop_repeats: int = 4,
) -> Episode:
    """One episode of ``task`` on ``env`` (any env with Gymnasium's reset/step)."""
    limit = (
        max_steps or task.max_steps or getattr(getattr(env, "spec", None), "max_episode_steps", None) or 500
    )
    if gif is not None and getattr(env, "render_mode", None) != "rgb_array":
        raise ValueError("a GIF needs frames: make the env with render_mode='rgb_array'")
    task.forget()
    obs, _ = env.reset(seed=seed)
    ep = Episode(seed=seed, reset_obs=obs, gif=gif, trace=trace)
    writer = _core.GifWriter(gif) if gif is not None else None
    # The C++ trace writer (meadow/runner.hpp), as the CLI's: an exclusive temporary name beside
    # the path, devices written in place, the path untouched if the episode fails.
    f = _core.TraceWriter(os.fspath(trace)) if trace is not None else None
    seen: dict[Any, int] = {}
    try:
        for t in range(limit):
            if not task.memory and ep.loop_hint is None:
                key = _state_key(task, obs)
                seen[key] = seen.get(key, 0) + 1
                if seen[key] >= loop_repeats:
                    ep.loop_hint = (
                        f"looping: the same state came back {loop_repeats} times with memory "
                        f"off (step {t}); try memory=True"
                    )
            action, info = mind.decide(task, obs)
            if writer is not None:
                frame = np.ascontiguousarray(env.render(), dtype=np.uint8)
                choice = f"{info.letter}) {task.option_text[info.letter]}  (p={info.probs[info.letter]:.2f})"
                writer.add(frame, gif_delay_ms, [info.status, choice])
            obs, reward, terminated, truncated, _ = env.step(action)
            s = Step(
                t,
                info.status,
                info.letter,
                info.probs,
                action,
                obs,
                float(reward),
                info.lat_ms,
                info.conditions,
            )
            ep.steps.append(s)
            ep.total_reward += float(reward)
            if f is not None:
                f.write(_core_step(s, with_obs=False), task.act_label(s.letter))
            if terminated or truncated:
                ep.terminated, ep.truncated = bool(terminated), bool(truncated)
                break
        else:
            ep.truncated = True
        if writer is not None:
            writer.close()
            writer = None
        if f is not None:
            f.close()
            f = None
    finally:
        # A failed episode leaves the GIF and trace paths as they were.
        if writer is not None:
            writer.discard()
        if f is not None:
            f.discard()
    lat = [s.lat_ms for s in ep.steps]
    ep.p50_ms = _core.percentile(lat, 0.5)
    ep.p95_ms = _core.percentile(lat, 0.95)
    ep.verdict = _judge(task, ep)
    return ep


def run(
    task: Task,
    env: Any = None,
    episodes: int = 1,
    seed: int | None = None,
    gif: str | None = None,
    trace: str | None = None,
    mind: MeadowMind | None = None,
    max_steps: int | None = None,
) -> Episodes:
    """Plays ``episodes`` episodes of ``task`` and judges them.

    Args:
        env: any env with Gymnasium's API; default: ours, ``envs.make(task.env_id, **task.env_kwargs)``.
        seed: the first episode's seed (then seed + 1, ...); default: a built-in task's fixed
            seeds, else 0, 1, ...
        gif, trace: file paths (numbered ``-0``, ``-1``, ... when several episodes).
        mind: the mind to decide with (default: ``MeadowMind()``).
    Returns:
        The episodes, each with its verdict; ``.verdict`` judges them together.
    """
    if not isinstance(task, Task):
        raise TypeError(f"task must be a meadow_mind.Task, got {type(task).__name__}")
    if not isinstance(episodes, int) or episodes < 1:
        raise ValueError("episodes must be a positive int")
    if env is None:
        if not task.env_id:
            raise ValueError(f"task {task.name} has no env_id: pass env=")
        env = envs.make(task.env_id, **task.env_kwargs)
    mind = mind or MeadowMind()
    fixed = getattr(task, "seeds", None)
    if seed is not None:
        seeds = [seed + i for i in range(episodes)]
    elif fixed:
        seeds = [fixed[i % len(fixed)] for i in range(episodes)]
    else:
        seeds = list(range(episodes))
    out = Episodes()
    for i, s in enumerate(seeds):
        out.append(
            play(task, mind, env, s, _numbered(gif, i, episodes), _numbered(trace, i, episodes), max_steps)
        )
    builtin = getattr(task, "_builtin", None)
    if builtin is not None and task.judge is None:
        ok, text = builtin.judge_all([_core_episode(ep) for ep in out])
        out.verdict = Verdict(ok, text)
    else:
        bad = [ep for ep in out if not ep.verdict.ok]
        out.verdict = Verdict(not bad, f"{len(out) - len(bad)}/{len(out)} episodes passed")
    return out


__all__ = ["run", "play", "Episode", "Episodes", "Step", "Verdict", "Info"]
