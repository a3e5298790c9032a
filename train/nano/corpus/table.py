"""Option and Table: what every table kind draws (tables.py's word tables, scenes.py's scene
tables, events.py's event tables) and generate.py renders.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Callable


@dataclass
class Option:
    letter: str
    text: str
    conds: list[list[str]] = field(default_factory=list)


@dataclass
class Table:
    kind: str
    rule: str
    options: list[Option]  # listing order
    situation: Callable[[random.Random], tuple[str, str]]  # -> (sentence, letter)
