"""Each built-in task played on the real Gymnasium env and on ours, on the task's fixed seeds:
both reach the task's target. Where the physics are identical (all but LunarLander) the
episodes are identical too, decision for decision."""

from __future__ import annotations

import pytest

from meadow_mind import run, tasks

# meadow's own envs (the maze, the real-time games) have no Gymnasium counterpart.
OURS_ONLY = {"FunnelMaze-v0", "Parkour-v0", "Shapes-v0"}
GYM_TASKS = [n for n in tasks.names() if tasks.get(n).env_id not in OURS_ONLY]


@pytest.mark.parametrize("name", GYM_TASKS)
def test_reaches_target_on_gymnasium_and_ours(gym, mind, name):
    task = tasks.get(name)
    n = len(task.seeds)
    ours = run(task, mind=mind, episodes=n)
    theirs = run(task, env=gym.make(task.env_id, **task.env_kwargs), mind=mind, episodes=n)
    print(f"\n{name}: ours {ours.verdict.text} | Gymnasium {theirs.verdict.text}")
    assert ours.verdict.ok, ours.verdict.text
    assert theirs.verdict.ok, theirs.verdict.text
    if task.env_id != "LunarLander-v3":
        for a, b in zip(ours, theirs):
            assert [s.letter for s in a.steps] == [s.letter for s in b.steps]
            assert a.total_reward == b.total_reward
