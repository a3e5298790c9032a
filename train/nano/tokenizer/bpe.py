"""Byte-level BPE: training merges on the corpus, and the encoder/decoder the trainer uses.

Vocabulary layout (ids): 0..255 the 256 single-byte tokens in byte order (so any UTF-8 text
tokenizes), then one token per merge in merge order, then the special tokens
<|endoftext|>, <|im_start|>, <|im_end|>, <|mask|> (token type 3 = control). Saved as JSON
(train/nano/tokenizer/vocab.json by default) and written into the GGUF by export_gguf.py.

Case: by default it is NOT normalised, as in Qwen, so "Pole" and "pole" differ in ids and the
corpus teaches the model that they match (train/nano/corpus varies case of content words between
rule and situation). A tokenizer file with "fold": true folds case before BPE (fold_case):
every ASCII letter of a word of two or more letters is lower-cased, a lone capital (an option
letter, "I") is kept. Why: byte-level BPE spells a short word in unrelated ids by case ("Part",
" part"), and such words are the model's worst lookups (0.61-0.68 against 0.90). The fold
keeps every byte's length, so mark spans still align; export_gguf.py writes it as
meadow.tokenizer.fold_case and the runtime applies the same fold.
"""

from __future__ import annotations

import heapq
import json
from collections import Counter

from .byte_unicode import byte_to_char, decode_chars, encode_bytes
from .pretokenize import pretokens, split_special

SPECIALS = ("<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|mask|>")
NORMAL, CONTROL = 1, 3


def _ascii_letter(c: str) -> bool:
    return ("a" <= c <= "z") or ("A" <= c <= "Z")


def fold_case(text: str) -> str:
    """Lower-case the ASCII capitals that have an ASCII letter beside them (byte lengths kept)."""
    if not any("A" <= c <= "Z" for c in text):
        return text
    out = list(text)
    for i, c in enumerate(text):
        if "A" <= c <= "Z" and (
            (i > 0 and _ascii_letter(text[i - 1])) or (i + 1 < len(text) and _ascii_letter(text[i + 1]))
        ):
            out[i] = c.lower()
    return "".join(out)


def train_merges(texts, n_merges: int) -> list[tuple[str, str]]:
    """Greedy BPE: repeatedly merge the most frequent adjacent pair (ties: smallest pair)."""
    counts: Counter[str] = Counter()
    for text in texts:
        for piece, special in split_special(text, SPECIALS):
            if not special:
                counts.update(encode_bytes(p) for p in pretokens(piece))
    words = [list(w) for w in counts]
    freqs = list(counts.values())
    pair_count: Counter[tuple[str, str]] = Counter()
    where: dict[tuple[str, str], set[int]] = {}
    for i, w in enumerate(words):
        for p in zip(w, w[1:]):
            pair_count[p] += freqs[i]
            where.setdefault(p, set()).add(i)
    heap = [(-c, p) for p, c in pair_count.items()]
    heapq.heapify(heap)
    merges = []
    while len(merges) < n_merges and heap:
        negc, pair = heapq.heappop(heap)
        if pair_count.get(pair, 0) != -negc or negc == 0:
            continue  # stale heap entry
        merges.append(pair)
        a, b = pair
        ab = a + b
        changed: Counter[tuple[str, str]] = Counter()
        for i in list(where.get(pair, ())):
            w, f = words[i], freqs[i]
            for p in zip(w, w[1:]):
                pair_count[p] -= f
                changed[p] += 0
            out, j = [], 0
            while j < len(w):
                if j + 1 < len(w) and w[j] == a and w[j + 1] == b:
                    out.append(ab)
                    j += 2
                else:
                    out.append(w[j])
                    j += 1
            words[i] = out
            for p in zip(out, out[1:]):
                pair_count[p] += f
                where.setdefault(p, set()).add(i)
                changed[p] += 0
        where.pop(pair, None)
        pair_count.pop(pair, None)
        for p in changed:
            c = pair_count.get(p, 0)
            if c > 0:
                heapq.heappush(heap, (-c, p))
            else:
                pair_count.pop(p, None)
    return merges


class Tokenizer:
    def __init__(self, merges: list[tuple[str, str]], fold: bool = False):
        self.merges = list(merges)
        self.fold = fold  # fold_case before BPE (module docstring)
        b2c = byte_to_char()
        self.tokens = [b2c[b] for b in range(256)] + [a + b for a, b in self.merges] + list(SPECIALS)
        self.types = [NORMAL] * (len(self.tokens) - len(SPECIALS)) + [CONTROL] * len(SPECIALS)
        self.ids = {}
        for i, t in enumerate(self.tokens):
            self.ids.setdefault(t, i)  # a merge can rebuild an existing string; first id wins
        self.ranks = {p: r for r, p in enumerate(self.merges)}
        self._cache: dict[str, list[int]] = {}
        self.special_ids = {s: len(self.tokens) - len(SPECIALS) + k for k, s in enumerate(SPECIALS)}

    # ids the runtime reads from GGUF metadata
    eot = property(lambda self: self.special_ids["<|endoftext|>"])
    im_start = property(lambda self: self.special_ids["<|im_start|>"])
    im_end = property(lambda self: self.special_ids["<|im_end|>"])
    mask = property(lambda self: self.special_ids["<|mask|>"])

    def __len__(self) -> int:
        return len(self.tokens)

    def _bpe(self, chars: str) -> list[int]:
        hit = self._cache.get(chars)
        if hit is not None:
            return hit
        w = list(chars)
        while len(w) > 1:
            best, bi = None, -1
            for i, p in enumerate(zip(w, w[1:])):
                r = self.ranks.get(p)
                if r is not None and (best is None or r < best):
                    best, bi = r, i
            if best is None:
                break
            w[bi : bi + 2] = [w[bi] + w[bi + 1]]
        ids = [self.ids[t] for t in w]
        if len(self._cache) < 200000:
            self._cache[chars] = ids
        return ids

    def encode(self, text: str) -> list[int]:
        out = []
        for piece, special in split_special(text, SPECIALS):
            if special:
                out.append(self.special_ids[piece])
            else:
                for p in pretokens(fold_case(piece) if self.fold else piece):
                    out.extend(self._bpe(encode_bytes(p)))
        return out

    def decode(self, ids) -> str:
        chars = []
        out = b""
        for i in ids:
            if self.types[i] == CONTROL:
                out += decode_chars("".join(chars)) + self.tokens[i].encode()
                chars = []
            else:
                chars.append(self.tokens[i])
        return (out + decode_chars("".join(chars))).decode("utf-8", errors="replace")

    def save(self, path: str) -> None:
        with open(path, "w", encoding="utf-8") as f:
            d = {"pre": "qwen2", "merges": [f"{a} {b}" for a, b in self.merges]}
            if self.fold:
                d["fold"] = True
            json.dump(d, f, ensure_ascii=False)

    @classmethod
    def load(cls, path: str) -> "Tokenizer":
        with open(path, encoding="utf-8") as f:
            d = json.load(f)
        return cls([tuple(m.split(" ", 1)) for m in d["merges"]], fold=bool(d.get("fold", False)))
