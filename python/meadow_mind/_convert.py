"""Observations and actions between Python values and the core's flat lists of numbers."""

from __future__ import annotations

from typing import Any

import numpy as np


def to_values(x: Any, what: str = "obs") -> list[float]:
    """A number, a sequence or an array of numbers as a flat list of floats."""
    if isinstance(x, (bool, int, float, np.integer, np.floating)):
        return [float(x)]
    try:
        a = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{what} must be a number or an array of numbers, got {type(x).__name__}") from e
    return a.ravel().tolist()


def space_value(space: Any, values: list[float]) -> Any:
    """Values as the space's type: int for Discrete, an array of its dtype and shape for Box."""
    if space.kind == "Discrete":
        return int(values[0])
    return np.asarray(values, dtype=np.dtype(space.dtype)).reshape(tuple(space.shape))


def check_obs(space: Any, env_id: str, values: list[float], size: int | None = None) -> None:
    """Raises ValueError for an observation the env could not have produced (the C++ perceivers
    index it, so a wrong size must never reach them). ``size``: the Box's element count, when
    the caller has it at hand."""
    if space.kind == "Discrete":
        if len(values) != 1 or not space.contains(values):
            shown = values if len(values) != 1 else int(values[0])
            raise ValueError(f"obs {shown} is not in {env_id}'s observation space {space.describe()}")
        return
    want = size if size is not None else int(np.prod(space.shape))
    if len(values) != want:
        raise ValueError(
            f"obs has {len(values)} values; {env_id} observations have {want} ({space.describe()})"
        )
