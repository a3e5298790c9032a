"""MindPolicy: a task and a mind as a Gymnasium policy, one environment or a vector of them,
on CliffWalking (not a built-in task: its task file is examples/tasks/cliffwalking.toml)."""

from __future__ import annotations

import os

import numpy as np
import pytest

from meadow_mind import MindPolicy, Task, envs, tasks

CLIFF = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "tasks", "cliffwalking.toml")


def test_one_environment_reaches_the_goal(mind, gym):
    policy = MindPolicy(Task.from_file(CLIFF), mind)
    env = gym.make("CliffWalking-v1")
    obs, _ = env.reset(seed=0)
    steps, total, done = 0, 0.0, False
    while not done and steps < 100:
        obs, reward, terminated, truncated, _ = env.step(policy(obs))
        steps, total, done = steps + 1, total + float(reward), terminated or truncated
    assert terminated and steps == 13 and total == -13.0
    assert policy.info.letter in "ABC"


def test_a_vector_of_environments_decided_in_one_call(mind, gym):
    policy = MindPolicy(Task.from_file(CLIFF), mind)
    n = 4
    vec = gym.make_vec("CliffWalking-v1", num_envs=n, vectorization_mode="sync")
    obs, _ = vec.reset(seed=0)
    finished = np.zeros(n, dtype=bool)
    steps = np.zeros(n, dtype=int)
    for _ in range(100):
        actions = policy.batch(obs)
        assert actions.shape == (n,) and len(policy.infos) == n
        # each row decided as the single call decides it
        assert [int(a) for a in actions] == [int(policy(o)) for o in obs]
        obs, _, terminated, truncated, _ = vec.step(actions)
        steps += ~finished
        finished |= terminated | truncated
        if finished.all():
            break
    assert finished.all() and (steps == 13).all(), steps


def test_ours_and_box_observations(mind):
    policy = MindPolicy(tasks.cartpole(), mind)
    env = envs.make("CartPole-v1")
    obs, _ = env.reset(seed=1)
    rows = np.stack([obs, obs * 0.5, -obs])
    actions = policy.batch(rows)
    assert actions.shape == (3,)
    assert [int(a) for a in actions] == [int(policy(r)) for r in rows]


def test_memory_tasks_are_not_batched(mind):
    policy = MindPolicy(tasks.maze(), mind)
    with pytest.raises(ValueError, match="working memory"):
        policy.batch([0, 1])
