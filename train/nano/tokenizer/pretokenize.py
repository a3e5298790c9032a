"""Pre-tokenization exactly as the runtime's `qwen2` pre-tokenizer (tokenizer.ggml.pre = qwen2):
split around special tokens, NFC-normalise the text between them, then split by Qwen2's regex."""

from __future__ import annotations

import re as _re
import unicodedata

import regex

QWEN2_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
_SPLIT = regex.compile(QWEN2_PATTERN)


def split_special(text: str, specials: tuple[str, ...]) -> list[tuple[str, bool]]:
    """[(piece, is_special)] with special tokens matched verbatim, longest first."""
    if not specials:
        return [(text, False)]
    alt = "|".join(_re.escape(s) for s in sorted(specials, key=len, reverse=True))
    out = []
    pos = 0
    for m in _re.finditer(alt, text):
        if m.start() > pos:
            out.append((text[pos : m.start()], False))
        out.append((m.group(0), True))
        pos = m.end()
    if pos < len(text):
        out.append((text[pos:], False))
    return out


def pretokens(text: str) -> list[str]:
    return _SPLIT.findall(unicodedata.normalize("NFC", text))
