"""The built-in tasks, as ``Task`` objects: the same words, perceivers, exams and judges as
``meadow-mind <task>`` (their perceivers and judges run in C++).

    task = tasks.cartpole()
    mind.check(task)
    action, info = mind.decide(task, obs)
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from . import _convert, _core
from .task import Task


def names() -> list[str]:
    """The built-in tasks' names, in listing order."""
    return list(_core.builtin_task_names())


def get(name: str) -> Task:
    """A built-in task by name. Raises ValueError naming the known tasks."""
    try:
        bt = _core.builtin_task(name)
    except _core.MeadowError as e:
        raise ValueError(str(e)) from None
    return from_native(bt)


def from_native(bt: Any) -> Task:
    """A Task around a C++ task (a built-in one, or one made from a task file): its perceiver
    and judge run in C++."""
    native = bt.task
    env_kwargs = json.loads(native.env_kwargs_json)
    obs_space = None
    if native.env_id:
        env = _core.make_env(native.env_id, native.env_kwargs_json)
        act_space, obs_space = env.action_space, env.observation_space
        options = {o.letter: _convert.space_value(act_space, list(o.action)) for o in native.options}
    else:  # a task file without environment: examined, not played
        options = {o.letter: o.action[0] if len(o.action) == 1 else list(o.action) for o in native.options}
    task = Task(
        perceive=None,
        rule=native.rule,
        options=options,
        option_text={o.letter: o.text for o in native.options},
        act_text={o.letter: o.act for o in native.options if o.act},
        sanity=list(native.sanity),
        env_id=native.env_id or None,
        env_kwargs=env_kwargs,
        max_steps=int(native.max_steps),
        name=native.name,
        summary=native.summary,
    )
    task.memory = bool(native.memory)
    task._native = native if native.has_perceiver else None
    task._builtin = bt
    task._obs_space = obs_space
    if obs_space is not None:
        task._obs_size = 1 if obs_space.kind == "Discrete" else int(np.prod(obs_space.shape))
    task.seeds = [int(s) for s in bt.seeds]
    task.target = bt.target
    return task


def cartpole() -> Task:
    """CartPole-v1: keep the pole up for 500 steps."""
    return get("cartpole")


def mountaincar() -> Task:
    """MountainCar-v0: reach the flag ("push in the same direction the car is moving")."""
    return get("mountaincar")


def frozenlake() -> Task:
    """FrozenLake-v1 8x8, not slippery: reach the goal by the shortest path."""
    return get("frozenlake")


def lunarlander() -> Task:
    """LunarLander-v3: land between the flags."""
    return get("lunarlander")


def maze() -> Task:
    """Our maze with a dead end: working memory gets the runner out."""
    return get("maze")


def parkour() -> Task:
    """Parkour-v0: dodge six walls to a free lane (from Python it plays turn by turn;
    `meadow-mind parkour` plays it against the wall clock)."""
    return get("parkour")


def shapes() -> Task:
    """Shapes-v0: press the key of the shape shown before its window closes (turn by turn from
    Python; `meadow-mind shapes` plays it against the wall clock)."""
    return get("shapes")


def __getattr__(name: str) -> Any:
    # tasks.<name>() for built-in tasks added after this file was written
    if name in _core.builtin_task_names():
        return lambda: get(name)
    raise AttributeError(name)
