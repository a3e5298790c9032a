"""The Python package's costs, in one run, printed as a table:

1. steps/s of a CartPole-v1 loop driven from Python, random policy: our envs vs the real
   Gymnasium's (same actions), then with the mind deciding every step;
2. a decision's cost from Python (MeadowMind.decide_status, MeadowMind.decide with the
   perceiver) against the same decisions timed inside C++, interleaved in rounds.

    PYTHONPATH=build/python .venv-py/bin/python bench/bench_python.py [--steps N] [--rounds R]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from meadow_mind import MeadowMind, envs, tasks


def loop(env, steps: int, policy) -> float:
    """Steps per second of reset/step driven from Python."""
    obs, _ = env.reset(seed=0)
    episode = 0
    t0 = time.perf_counter()
    for i in range(steps):
        obs, _, terminated, truncated, _ = env.step(policy(obs, i))
        if terminated or truncated:
            episode += 1
            obs, _ = env.reset(seed=episode)
    return steps / (time.perf_counter() - t0)


def loop_table(mind: MeadowMind, task, actions: list[int], steps: int, mind_steps: int) -> None:
    """Steps/s of CartPole-v1 loops on our envs and Gymnasium's: random policy, then the mind."""
    try:
        import gymnasium
    except ImportError:
        gymnasium = None

    def random_policy(obs, i):
        return actions[i]

    def mind_policy(obs, i):
        return mind.decide(task, obs)[0]

    rows = []
    ours = loop(envs.make("CartPole-v1"), steps, random_policy)
    if gymnasium is not None:
        theirs = loop(gymnasium.make("CartPole-v1"), steps, random_policy)
        rows.append(("CartPole-v1 random policy", f"{ours:,.0f}", f"{theirs:,.0f}", f"{ours / theirs:.2f}x"))
    else:
        rows.append(("CartPole-v1 random policy", f"{ours:,.0f}", "(no gymnasium)", ""))
    ours = loop(envs.make("CartPole-v1"), mind_steps, mind_policy)
    if gymnasium is not None:
        theirs = loop(gymnasium.make("CartPole-v1"), mind_steps, mind_policy)
        rows.append(("CartPole-v1 mind deciding", f"{ours:,.0f}", f"{theirs:,.0f}", f"{ours / theirs:.2f}x"))
    print(f"model {mind.model_path} ({mind.arch}), {mind.threads} thread(s)\n")
    print("| loop (steps/s) | our envs | Gymnasium 1.4.0 | ratio |\n|---|---:|---:|---:|")
    for r in rows:
        print("| " + " | ".join(r) + " |")


def decision_table(mind: MeadowMind, task, actions: list[int], rounds: int) -> None:
    """The same statuses and observations, C++-timed vs Python-timed, interleaved in rounds."""
    env = envs.make("CartPole-v1")
    obs_list, (obs, _) = [], env.reset(seed=1)
    for i in range(100):
        obs_list.append(obs)
        obs, _, term, trunc, _ = env.step(actions[i])
        if term or trunc:
            obs, _ = env.reset(seed=i)
    statuses = [task.status(o) for o in obs_list]
    core = task.core()
    for s in statuses:  # warm: prefix cache, allocations
        mind.decide_status(task, s)
    cpp, py_status, py_decide = [], [], []
    for _ in range(rounds):
        cpp.append(mind._mind.time_decide_status(core, statuses))
        t0 = time.perf_counter()
        for s in statuses:
            mind.decide_status(task, s)
        py_status.append((time.perf_counter() - t0) * 1e3 / len(statuses))
        t0 = time.perf_counter()
        for o in obs_list:
            mind.decide(task, o)
        py_decide.append((time.perf_counter() - t0) * 1e3 / len(obs_list))
    c = statistics.median(cpp)
    print(f"\n| one decision ({len(statuses)} statuses x {rounds} rounds, median) | ms | over C++ (paired) |")
    print("|---|---:|---:|")
    print(f"| C++ Mind::decide_status (timed in C++) | {c:.4f} | |")
    for name, xs in (
        ("Python MeadowMind.decide_status", py_status),
        ("Python MeadowMind.decide (perceive + decide)", py_decide),
    ):
        # Each round's Python time minus the same round's C++ time: the machine's drift cancels.
        over = statistics.median(x - y for x, y in zip(xs, cpp))
        print(f"| {name} | {statistics.median(xs):.4f} | {over:+.4f} ms |")
    python_own_work(mind, task, core, statuses, obs_list)


def python_own_work(mind: MeadowMind, task, core, statuses: list[str], obs_list: list) -> None:
    """The Python layer's own work per decision, timed without the forward pass (the paired
    differences above carry the machine's noise; this is what Python adds)."""
    from meadow_mind.mind import Info

    d = mind._mind.decide_status(core, statuses[0])
    n = 20000
    t0 = time.perf_counter()
    for i in range(n):
        task.status(obs_list[i % len(obs_list)])
        task.core()
        Info.from_core(d)
    own = (time.perf_counter() - t0) * 1e3 / n
    print(f"| Python's own work per decide (perceive wrapper, table lookup, Info) | {own:.4f} | |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=20000, help="steps of the random-policy loops")
    ap.add_argument("--mind-steps", type=int, default=2000, help="steps of the loops with the mind")
    ap.add_argument("--rounds", type=int, default=15, help="interleaved rounds of the decision timing")
    ap.add_argument("--model", default="nano")
    a = ap.parse_args()
    mind = MeadowMind(a.model)
    task = tasks.cartpole()
    actions = np.random.default_rng(0).integers(2, size=a.steps).tolist()
    loop_table(mind, task, actions, a.steps, a.mind_steps)
    decision_table(mind, task, actions, a.rounds)


if __name__ == "__main__":
    main()
