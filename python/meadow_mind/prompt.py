"""The guide for a code agent wiring a new game with this package.

One text for the C++ API and the Python package (src/mind/agent_guide.md, compiled into the
extension); this module gives its Python version.
"""

from __future__ import annotations

from . import _core


def ai_prompt(language: str = "python") -> str:
    """The guide for a code agent wiring a new game: ``"python"`` (this package) or ``"cpp"``."""
    return _core.ai_prompt(language)


AI_PROMPT = ai_prompt()
