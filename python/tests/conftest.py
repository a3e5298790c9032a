"""Fixtures: one mind on the embedded meadow-nano for the whole session (whatever default the
machine's cache configures), and the real Gymnasium when installed."""

from __future__ import annotations

import pytest

from meadow_mind import MeadowMind


@pytest.fixture(scope="session")
def mind() -> MeadowMind:
    return MeadowMind("nano")


@pytest.fixture(scope="session")
def gym():
    return pytest.importorskip("gymnasium")
