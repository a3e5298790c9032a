"""GPT-2's byte <-> unicode table: every byte maps to a printable character, so byte-level BPE
tokens are plain strings (this is how GGUF and tokenizer.json store them)."""

from __future__ import annotations

import functools


@functools.lru_cache(maxsize=None)
def byte_to_char() -> dict[int, str]:
    printable = (
        list(range(ord("!"), ord("~") + 1))
        + list(range(ord("¡"), ord("¬") + 1))
        + list(range(ord("®"), ord("ÿ") + 1))
    )
    table = {b: chr(b) for b in printable}
    n = 0
    for b in range(256):
        if b not in table:
            table[b] = chr(256 + n)  # unprintable bytes move to U+0100.. in byte order
            n += 1
    return table


@functools.lru_cache(maxsize=None)
def char_to_byte() -> dict[str, int]:
    return {c: b for b, c in byte_to_char().items()}


def encode_bytes(text: str) -> str:
    t = byte_to_char()
    return "".join(t[b] for b in text.encode("utf-8"))


def decode_chars(chars: str) -> bytes:
    t = char_to_byte()
    return bytes(t[c] for c in chars)
