"""Our environments against the real Gymnasium, live: for every env, 200 random (seed, action
sequence) pairs, stepped side by side. Identical observations, rewards, flags and info, bit
for bit, except LunarLander, whose Box2D differs (Debian's Box2D 2.4 here, Box2D 2.3.10 in
Gymnasium's wheel): there the terrain and the initial push are identical, and the gap the two
physics engines open in the first 30 steps is printed and bounded.

Bit-exactness needs the numerics the recorded traces were made with (docs/RNG-NOTES.md):
NumPy 1.24.2 (python/requirements-dev.txt pins it) with its SIMD dispatch disabled, so that
sin/cos are glibc's; the ctest entry sets NPY_DISABLE_CPU_FEATURES (python/tests/npy_dispatch.py).
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from meadow_mind import envs

PAIRS = 200
MAX_STEPS = 200

EXACT = [
    ("CartPole-v1", {}),
    ("CartPole-v1", {"sutton_barto_reward": True}),
    ("MountainCar-v0", {}),
    ("MountainCarContinuous-v0", {}),
    ("Pendulum-v1", {}),
    ("Pendulum-v1", {"g": 9.81}),
    ("Acrobot-v1", {}),
    ("FrozenLake-v1", {}),
    ("FrozenLake-v1", {"map_name": "8x8", "is_slippery": False}),
    ("Taxi-v4", {}),
    ("CliffWalking-v1", {}),
]


def actions(space, rng, n):
    if isinstance(space, envs.Discrete):
        return [int(space.start + rng.integers(space.n)) for _ in range(n)]
    return [rng.uniform(space.low, space.high).astype(space.dtype) for _ in range(n)]


def same(a, b):
    return np.array_equal(np.asarray(a), np.asarray(b))


def same_info(ours, theirs):
    for k, v in theirs.items():
        if isinstance(v, (int, float, np.ndarray, np.number)):
            assert k in ours, k
            assert same(ours[k], v), (k, ours[k], v)


@pytest.mark.parametrize("env_id, kwargs", EXACT, ids=[f"{i}{k or ''}" for i, k in EXACT])
def test_identical_to_gymnasium(gym, env_id, kwargs):
    ours = envs.make(env_id, **kwargs)
    theirs = gym.make(env_id, **kwargs)
    rng = np.random.default_rng(zlib.crc32(repr((env_id, kwargs)).encode()))
    steps = 0
    for _ in range(PAIRS):
        seed = int(rng.integers(2**31))
        o1, i1 = ours.reset(seed=seed)
        o2, i2 = theirs.reset(seed=seed)
        assert same(o1, o2), (seed, o1, o2)
        same_info(i1, i2)
        for t, a in enumerate(actions(ours.action_space, rng, MAX_STEPS)):
            r1 = ours.step(a)
            r2 = theirs.step(a)
            steps += 1
            assert same(r1[0], r2[0]), (seed, t, r1[0], r2[0])
            assert float(r1[1]) == float(r2[1]), (seed, t, r1[1], r2[1])
            assert (r1[2], r1[3]) == (bool(r2[2]), bool(r2[3])), (seed, t)
            same_info(r1[4], r2[4])
            if r1[2] or r1[3]:
                break
    assert steps >= PAIRS


@pytest.mark.parametrize("continuous", [False, True])
def test_lunarlander_close_to_gymnasium(gym, continuous):
    pytest.importorskip("Box2D")
    ours = envs.make("LunarLander-v3", continuous=continuous)
    theirs = gym.make("LunarLander-v3", continuous=continuous)
    rng = np.random.default_rng(7 + continuous)
    gaps = []
    for _ in range(PAIRS):
        seed = int(rng.integers(2**31))
        o1, _ = ours.reset(seed=seed)
        o2, _ = theirs.reset(seed=seed)
        # Gymnasium's reset already runs one Box2D step, so the versions part from there.
        gaps.append(np.max(np.abs(o1.astype(np.float64) - o2.astype(np.float64))))
        # 30 steps: before contact, where two Box2D versions should still agree closely.
        for a in actions(ours.action_space, rng, 30):
            r1, r2 = ours.step(a), theirs.step(a)
            gaps.append(np.max(np.abs(r1[0].astype(np.float64) - r2[0].astype(np.float64))))
            if r1[2] or r2[2]:
                break
    gaps = np.asarray(gaps)
    print(
        f"\nLunarLander-v3 continuous={continuous}: {len(gaps)} steps, obs gap max {gaps.max():.2e} "
        f"p99 {np.quantile(gaps, 0.99):.2e} median {np.median(gaps):.2e}"
    )
    assert np.median(gaps) < 1e-3 and gaps.max() < 0.05
