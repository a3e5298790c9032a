"""Our environments with Gymnasium's API: ``make(id, **kwargs)``, ``reset(seed=...)``,
``step(action)``, spaces and ``render()``. Same ids, kwargs, seeds, observations, rewards and
flags as the real Gymnasium (tested live against it).

    env = envs.make("CartPole-v1")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import _convert, _core


class _Space:
    """What both space kinds share: the core's membership test and a seedable generator."""

    def __init__(self, core: Any) -> None:
        self._core = core
        self.np_random = np.random.default_rng()

    def seed(self, seed: int | None = None) -> None:
        self.np_random = np.random.default_rng(seed)

    def contains(self, x: Any) -> bool:
        try:
            return bool(self._core.contains(_convert.to_values(x)))
        except TypeError:
            return False

    def __repr__(self) -> str:
        return self._core.describe()


class Discrete(_Space):
    """Integers ``start .. start + n - 1``."""

    def __init__(self, core: Any) -> None:
        super().__init__(core)
        self.n = int(core.n)
        self.start = int(core.start)
        self.shape: tuple[int, ...] = ()
        self.dtype = np.dtype(np.int64)

    def sample(self) -> int:
        return int(self.start + self.np_random.integers(self.n))


class Box(_Space):
    """Arrays of ``shape`` between ``low`` and ``high``."""

    def __init__(self, core: Any) -> None:
        super().__init__(core)
        self.shape = tuple(int(s) for s in core.shape)
        self.dtype = np.dtype(core.dtype)
        self.low = np.asarray(core.low, dtype=self.dtype).reshape(self.shape)
        self.high = np.asarray(core.high, dtype=self.dtype).reshape(self.shape)

    def sample(self) -> np.ndarray:
        lo = np.where(np.isfinite(self.low), self.low, -1.0)
        hi = np.where(np.isfinite(self.high), self.high, 1.0)
        return self.np_random.uniform(lo, hi).astype(self.dtype)


def _space(core: Any) -> Discrete | Box:
    return Discrete(core) if core.kind == "Discrete" else Box(core)


@dataclass(frozen=True)
class EnvSpec:
    """A registered environment: id, time limit, reward threshold, default kwargs, and its
    documentation in Gymnasium's sections (``doc``)."""

    id: str
    max_episode_steps: int | None
    reward_threshold: float | None
    kwargs: dict[str, Any] = field(default_factory=dict)
    summary: str = ""
    doc: str = ""


def registry() -> dict[str, EnvSpec]:
    """Every environment ``make`` knows, by id."""
    return {
        i: EnvSpec(i, steps, threshold, json.loads(kwargs), summary, doc)
        for i, steps, threshold, kwargs, summary, doc in _core.env_specs()
    }


def _info(info: dict[str, list[float]]) -> dict[str, Any]:
    return {k: (v[0] if len(v) == 1 else np.asarray(v)) for k, v in info.items()}


class Env:
    """One of our environments (from ``make``), stepped like a Gymnasium env."""

    render_mode = "rgb_array"
    metadata: dict[str, Any] = {"render_modes": ["rgb_array"]}

    def __init__(self, env_id: str, core: Any, spec: EnvSpec | None) -> None:
        self._core = core
        self.spec = spec
        self.observation_space = _space(core.observation_space)
        self.action_space = _space(core.action_space)
        self._obs_core = core.observation_space

    @property
    def unwrapped(self) -> Env:
        return self

    @property
    def id(self) -> str:
        return self._core.id

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict]:
        """Starts an episode; ``seed`` as Gymnasium's (same first observation)."""
        if seed is not None and (not isinstance(seed, (int, np.integer)) or seed < 0):
            raise ValueError(f"seed must be a non-negative int, got {seed!r}")
        obs, info = self._core.reset(None if seed is None else int(seed))
        return _convert.space_value(self._obs_core, obs), _info(info)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        """One step: ``(obs, reward, terminated, truncated, info)``."""
        values = _convert.to_values(action, "action")
        try:
            obs, reward, terminated, truncated, info = self._core.step(values)
        except _core.MeadowError as e:
            raise ValueError(str(e)) from None
        return _convert.space_value(self._obs_core, obs), reward, terminated, truncated, _info(info)

    def render(self) -> np.ndarray:
        """The current picture as an (height, width, 3) uint8 array."""
        return self._core.render()

    def close(self) -> None:
        pass

    def __enter__(self) -> Env:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"meadow_mind.envs.Env({self.id!r})"


def doc(env_id: str) -> str:
    """An environment's documentation: action and observation spaces, rewards, starting state,
    episode end and arguments. Raises ValueError for an unknown id."""
    spec = registry().get(env_id)
    if spec is None:
        raise ValueError(f"unknown env id {env_id!r}; known: {', '.join(registry())}")
    return spec.doc


_classes: dict[str, type] = {}


def _class_of(spec: EnvSpec | None) -> type:
    """A subclass of Env per id whose docstring is the env's, so that help(env) shows it."""
    if spec is None:
        return Env
    if spec.id not in _classes:
        name = "".join(c for c in spec.id.split("-")[0] if c.isalnum())
        _classes[spec.id] = type(name, (Env,), {"__doc__": spec.doc, "__module__": __name__})
    return _classes[spec.id]


def make(env_id: str, **kwargs: Any) -> Env:
    """Our environment ``env_id`` with Gymnasium's kwargs (e.g. ``map_name="8x8"``).

    Raises ValueError for an unknown id, an unknown kwarg or one of the wrong type.
    """
    kwargs.pop("render_mode", None)  # ours always render rgb_array frames
    try:
        core = _core.make_env(env_id, json.dumps(kwargs))
    except _core.MeadowError as e:
        raise ValueError(str(e)) from None
    except TypeError as e:
        raise ValueError(f"kwargs of {env_id} must be JSON values: {e}") from None
    spec = registry().get(env_id)
    return _class_of(spec)(env_id, core, spec)
