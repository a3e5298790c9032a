"""A task and a mind as a Gymnasium policy.

import gymnasium as gym
from meadow_mind import MeadowMind, MindPolicy, Task

policy = MindPolicy(Task.from_file("examples/tasks/cliffwalking.toml"), MeadowMind())
env = gym.make("CliffWalking-v1")
obs, _ = env.reset(seed=0)
obs, reward, terminated, truncated, _ = env.step(policy(obs))

envs = gym.make_vec("CliffWalking-v1", num_envs=8)
obs, _ = envs.reset(seed=0)
obs, rewards, terminated, truncated, _ = envs.step(policy.batch(obs))  # one forward pass
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .mind import Info, MeadowMind
from .task import Task


class MindPolicy:
    """``policy(obs) -> action`` for one environment, ``policy.batch(obs) -> actions`` for a
    ``gymnasium.vector`` environment (every sub-environment's observation decided in one call).

    Args:
        task: the task whose perceiver, rule and options decide (``Task``, ``tasks.get(...)``
            or ``Task.from_file(...)``).
        mind: the mind to decide with (default: ``MeadowMind()``, the embedded model).
        check: run the task's exam first (``mind.check``), raising ``ExamFailed`` on a miss
            beyond the allowed one, as ``meadow-mind <task>`` does before it plays.

    After each call, ``info`` (one ``Info``) or ``infos`` (a list, one per sub-environment)
    holds the decision records: letter, probabilities, latency.

    Raises:
        ValueError: a task with working memory given to ``batch`` (one memory cannot follow
            several environments at once).
    """

    def __init__(self, task: Task, mind: MeadowMind | None = None, check: bool = True) -> None:
        if not isinstance(task, Task):
            raise TypeError(f"task must be a meadow_mind.Task, got {type(task).__name__}")
        self.task = task
        self.mind = mind if mind is not None else MeadowMind()
        self.info: Info | None = None
        self.infos: list[Info] = []
        if check:
            self.mind.check(task)

    def __call__(self, obs: Any) -> Any:
        action, self.info = self.mind.decide(self.task, obs)
        return action

    def batch(self, observations: Any) -> np.ndarray:
        """The actions for a batch of observations (the first axis is the sub-environment),
        stacked as a ``gymnasium.vector`` environment's ``step`` takes them."""
        if self.task.memory:
            raise ValueError(
                f"task {self.task.name} has working memory, which follows one environment; "
                "call the policy once per environment instead of batch()"
            )
        rows = list(observations)
        if not rows:
            raise ValueError("batch() needs at least one observation")
        pairs = self.mind.decide_batch(self.task, rows)
        self.infos = [info for _, info in pairs]
        return np.stack([np.asarray(action) for action, _ in pairs])

    def reset(self) -> None:
        """Forgets the task's working memory (call it when the environment resets)."""
        self.task.forget()

    def __repr__(self) -> str:
        return f"MindPolicy(task={self.task.name!r}, model={self.mind.model_path!r})"
