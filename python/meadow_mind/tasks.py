"""The built-in tasks, as ``Task`` objects: the same words, perceivers, exams and judges as
``meadow-mind <task>`` (their perceivers and judges run in C++).

    task = tasks.cartpole()
    mind.check(task)
    action, info = mind.decide(task, obs)
"""

from __future__ import annotations

from typing import Any


from . import _core
from .task import Task, from_native


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
