"""Prompt layouts: the constant PREFIX (system + rule + options) and the per-decision SUFFIX.

The user message's parts (rule and options, situation) and the default system message are the
prompt contract's (train/common/prompt.py, models/prompt-contract.json). The chat layout is
docs/prompt-contract.md (the runtime builds the same prompt, src/decision/prompt.cpp): prefix and suffix are tokenized separately and their ids
concatenated, the answer slot (1..3 <|mask|> tokens) follows the suffix, and the prefix attends
only to itself, so training packs several suffixes after one prefix (train/nano/batching.py).

chat layout (what the runtime uses):
    <|im_start|>system\n{system}<|im_end|>\n<|im_start|>user\nRule: {rule}\nOptions:\n{A) text\n...}
    --- prefix ends / suffix starts ---
    Situation: {situation}<|im_end|>\n<|im_start|>assistant\n<|mask|>...
compact layout (early curriculum only: shorter sequences, same structure without chat tokens):
    Rule: {rule}\nOptions:\n{A) text\n...}
    --- prefix ends / suffix starts ---
    Situation: {situation}\nAnswer:<|mask|>...
The answer slot's targets are: the letter, then <|im_end|>, then <|endoftext|>.
"""

from __future__ import annotations

import random

from train.common import prompt as P

from . import templates as T

IM_START, IM_END, EOT, MASK = "<|im_start|>", "<|im_end|>", "<|endoftext|>", "<|mask|>"
SPECIAL_TOKENS = (EOT, IM_START, IM_END, MASK)


def options_block(rng: random.Random, options) -> str:
    fmt = rng.choice(T.OPTION_LINES)
    return "".join(fmt.replace("{L}", o.letter).replace("{T}", o.text) + "\n" for o in options)


def chat_prefix(system: str, rule: str, options_text: str) -> str:
    return f"{IM_START}system\n{system}{IM_END}\n{IM_START}user\n" + P.prefix(rule, options_text)


def chat_suffix(situation: str) -> str:
    return P.suffix(situation) + f"{IM_END}\n{IM_START}assistant\n"


def compact_prefix(rule: str, options_text: str) -> str:
    return P.prefix(rule, options_text)


def compact_suffix(situation: str) -> str:
    return P.suffix(situation) + "\nAnswer:"


def render(rng: random.Random, table, situations: list[str], chat: bool) -> tuple[str, list[str]]:
    opts = options_block(rng, table.options)
    if chat:
        system = T.DEFAULT_SYSTEM if rng.random() < 0.6 else rng.choice(T.SYSTEM_PROMPTS)
        return chat_prefix(system, table.rule, opts), [chat_suffix(s) for s in situations]
    return compact_prefix(table.rule, opts), [compact_suffix(s) for s in situations]
