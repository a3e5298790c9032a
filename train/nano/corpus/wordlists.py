"""Word sources for the corpus: Debian's wamerican list and WordNet's data files.

Most content words come from the large list so the model has to *match* words it has
never seen rather than memorise a small vocabulary. WordNet supplies synonyms, antonyms,
irregular inflections and a frequency ranking (cntlist.rev) for the "common words" pool
used by the earliest curriculum stages.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import zlib

DICT_PATH = os.environ.get("MEADOW_DICT", "/usr/share/dict/american-english")
WORDNET_DIR = os.environ.get("MEADOW_WORDNET", "/usr/share/wordnet")

_ALPHA = re.compile(r"^[a-z]{3,10}$")

# Words the templates themselves use; never drawn as content words so a condition can't
# collide with the scaffolding ("if", "choose", direction words, modifiers...).
RESERVED = set(
    """
if when then else otherwise choose pick means mean do on the a an and or not no is are was
be to of in at by for with as any other case whenever it its this that you your go take
left right up down north south east west forward backward back front rear in out inward
outward clockwise counterclockwise upward downward above below ahead behind toward towards
away same opposite direction way slightly very fast slow slowly quickly barely strongly bit
little much more less option options rule situation answer letter system user assistant
moving heading going facing pointing moves heads goes low high medium small large tiny huge
near far none zero level middle
""".split()
)


@functools.lru_cache(maxsize=None)
def dictionary_words() -> tuple[str, ...]:
    """Lower-case alphabetic words of 3..10 letters from wamerican (about 50k)."""
    out = []
    with open(DICT_PATH, encoding="utf-8", errors="ignore") as f:
        for line in f:
            w = line.strip()
            if _ALPHA.match(w) and w not in RESERVED:
                out.append(w)
    return tuple(sorted(set(out)))


# --- the seen / unseen split (issue 4: "synthetic tables with unseen words") -----------------
# About UNSEEN_PERCENT % of the dictionary's words never appear as content words in training;
# train/nano/eval_table.py draws tables from them alone. A word's side is fixed by a hash of its
# rough word family (suffix stripped), so "ferment", "ferments" and "fermenting" fall together
# and an inflection of a training word is rarely an unseen word. Generators draw content words
# from common_words() / split_words() and keep synonyms with in_split(); word_split("unseen")
# switches every pool to the unseen side (evaluation only).
UNSEEN_PERCENT = 10
SPLITS = ("train", "unseen")
_split = ["train"]


def word_family(w: str) -> str:
    """A rough stem: -ing / -ed / -es / -s off, then a final 'e' off and 'i' -> 'y'."""
    for suf in ("ing", "ed", "es", "s"):
        if w.endswith(suf) and len(w) - len(suf) >= 3 and not w.endswith("ss"):
            w = w[: -len(suf)]
            break
    if w.endswith("e"):
        w = w[:-1]
    elif w.endswith("i"):
        w = w[:-1] + "y"
    return w


def is_unseen(w: str) -> bool:
    """True for the ~10 % of words training never uses (deterministic: CRC-32 of the family)."""
    return zlib.crc32(word_family(w.lower()).encode()) % 100 < UNSEEN_PERCENT


def current_split() -> str:
    return _split[0]


def in_split(w: str, split: str | None = None) -> bool:
    return is_unseen(w) == ((split or _split[0]) == "unseen")


@contextlib.contextmanager
def word_split(name: str):
    """with word_split("unseen"): every content-word pool draws only unseen words."""
    if name not in SPLITS:
        raise ValueError(f"word split {name!r}: expected one of {SPLITS}")
    old, _split[0] = _split[0], name
    try:
        yield
    finally:
        _split[0] = old


def split_words(split: str | None = None) -> tuple[str, ...]:
    """dictionary_words() on one side of the split (default: the current one)."""
    return _split_words(split or _split[0])


@functools.lru_cache(maxsize=None)
def _split_words(split: str) -> tuple[str, ...]:
    return tuple(w for w in dictionary_words() if in_split(w, split))


def common_words(n: int = 1500, split: str | None = None) -> tuple[str, ...]:
    """The n most frequent dictionary words (see _ranked_common), then only those of the split
    (default: the current one), so a "common" word stays common on both sides."""
    return _common_split(n, split or _split[0])


@functools.lru_cache(maxsize=None)
def _common_split(n: int, split: str) -> tuple[str, ...]:
    return tuple(w for w in _ranked_common(n) if in_split(w, split))


@functools.lru_cache(maxsize=None)
def _ranked_common(n: int = 1500) -> tuple[str, ...]:
    """The n most frequent WordNet lemmas (sense-tagged counts) that are also dictionary words."""
    counts: dict[str, int] = {}
    with open(os.path.join(WORDNET_DIR, "cntlist.rev"), encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if len(parts) != 3:
                continue
            lemma = parts[0].split("%", 1)[0]
            counts[lemma] = counts.get(lemma, 0) + int(parts[2])
    words = set(dictionary_words())
    ranked = sorted((w for w in counts if w in words and len(w) <= 8), key=lambda w: (-counts[w], w))
    return tuple(ranked[:n])


def _parse_data_file(path: str):
    """Yield (offset, words, antonym (target offset, target word number) list) per synset."""
    with open(path, encoding="utf-8", errors="ignore") as f:
        for line in f:
            if line.startswith("  "):
                continue  # licence header
            fields = line.split("|", 1)[0].split()
            offset = fields[0]
            n_words = int(fields[3], 16)
            words = []
            for i in range(n_words):
                w = re.sub(r"\(.*\)$", "", fields[4 + 2 * i]).lower()
                words.append(w)
            k = 4 + 2 * n_words
            n_ptr = int(fields[k])
            ants = []
            for i in range(n_ptr):
                sym, tgt, _pos, st = fields[k + 1 + 4 * i : k + 5 + 4 * i]
                if sym == "!":
                    ants.append((int(st[:2], 16), tgt, int(st[2:], 16)))
            yield offset, words, ants


@functools.lru_cache(maxsize=None)
def wordnet_relations() -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    """(synonyms, antonyms): word -> other single words, both restricted to dictionary words."""
    vocab = set(dictionary_words())
    syn: dict[str, set[str]] = {}
    ant: dict[str, set[str]] = {}
    for pos in ("noun", "verb", "adj", "adv"):
        path = os.path.join(WORDNET_DIR, "data." + pos)
        if not os.path.exists(path):
            continue
        by_offset = {}
        pending = []
        for offset, words, ants in _parse_data_file(path):
            by_offset[offset] = words
            good = [w for w in words if w in vocab]
            for w in good:
                syn.setdefault(w, set()).update(x for x in good if x != w)
            for src, tgt, tnum in ants:
                pending.append((words, src, tgt, tnum))
        for words, src, tgt, tnum in pending:
            tw = by_offset.get(tgt)
            if not tw or tnum < 1 or tnum > len(tw):
                continue
            srcs = words if src == 0 else words[src - 1 : src]
            b = tw[tnum - 1]
            for a in srcs:
                if a in vocab and b in vocab and a != b:
                    ant.setdefault(a, set()).add(b)
                    ant.setdefault(b, set()).add(a)
    freeze = lambda d: {k: tuple(sorted(v)) for k, v in d.items() if v}
    return freeze(syn), freeze(ant)


@functools.lru_cache(maxsize=None)
def irregular_forms() -> dict[str, tuple[str, ...]]:
    """base -> irregular inflected forms from WordNet's *.exc files (e.g. go -> went, gone)."""
    out: dict[str, set[str]] = {}
    for pos in ("noun", "verb", "adj"):
        path = os.path.join(WORDNET_DIR, pos + ".exc")
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 2 and _ALPHA.match(parts[0]) and _ALPHA.match(parts[1]):
                    out.setdefault(parts[1], set()).add(parts[0])
    return {k: tuple(sorted(v)) for k, v in out.items()}


_VOWELS = set("aeiou")


def regular_inflections(w: str) -> list[str]:
    """-s / -ed / -ing forms by English spelling rules (approximate; good enough to teach
    the model that a stem plus a suffix still matches the stem)."""
    out = []
    if w.endswith(("s", "x", "z", "ch", "sh")):
        out.append(w + "es")
    elif w.endswith("y") and len(w) > 2 and w[-2] not in _VOWELS:
        out.append(w[:-1] + "ies")
    else:
        out.append(w + "s")
    if w.endswith("e"):
        out += [w + "d", w[:-1] + "ing"]
    elif w.endswith("y") and len(w) > 2 and w[-2] not in _VOWELS:
        out += [w[:-1] + "ied", w + "ing"]
    else:
        out += [w + "ed", w + "ing"]
    return out


def inflections(w: str) -> list[str]:
    irregular = list(irregular_forms().get(w, ()))
    regular = regular_inflections(w)
    if irregular:  # "went" replaces "goed"; keep only the regular -s / -ing forms
        regular = [x for x in regular if not x.endswith(("ed", "d"))] + irregular
    return sorted(set(regular) - {w})
