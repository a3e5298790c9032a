"""The decision prompt contract: models/prompt-contract.json (docs/prompt-contract.md) is the one
definition of the system message and of the user message's layout. Every trainer builds its
prompts from it, and every exporter of a decision model writes it into the GGUF as
meadow.prompt.system / .prefix / .option / .suffix (`gguf_metadata`), where the runtime reads a
model's own copy.

The user message is PREFIX (the rule and the option lines, each an OPTION) then SUFFIX (the
situation); a chat template wraps them, the system message first.
"""

from __future__ import annotations

import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONTRACT = os.path.join(ROOT, "models", "prompt-contract.json")
KEYS = ("system", "prefix", "option", "suffix")


def load(path: str = CONTRACT) -> dict[str, str]:
    """The contract's four strings."""
    with open(path, encoding="utf-8") as f:
        contract = json.load(f)
    return {k: contract[k] for k in KEYS}


_CONTRACT = load()
SYSTEM, PREFIX, OPTION, SUFFIX = (_CONTRACT[k] for k in KEYS)


def option_lines(options) -> str:
    """The option lines of (letter, text) pairs."""
    return "".join(OPTION.format(letter=letter, text=text) for letter, text in options)


def prefix(rule: str, options_text: str) -> str:
    """The user message up to the situation: the rule and the option lines."""
    return PREFIX.format(rule=rule, options=options_text)


def suffix(situation: str) -> str:
    """The user message's situation part."""
    return SUFFIX.format(situation=situation)


def gguf_metadata() -> dict[str, str]:
    """The contract as GGUF metadata strings: meadow.prompt.<key>."""
    return {f"meadow.prompt.{k}": v for k, v in _CONTRACT.items()}
