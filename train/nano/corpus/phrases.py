"""The scene register's words and phrases, shared by the scene, event and rewording tables:
subjects and things (WordNet nouns among frequent words, or any dictionary noun for rare place
nouns), motion verbs, states, places, actions and idle phrases, and the helpers that draw them
for one table. The built-in tasks' nouns (TASK_NOUNS) are never drawn.
"""

from __future__ import annotations

import functools
import random

from . import wordlists as W

# nouns of the built-in tasks: kept out of scene subjects/things so their exams test new words
TASK_NOUNS = {
    "pole",
    "cart",
    "car",
    "lander",
    "pad",
    "goal",
    "hole",
    "path",
    "exit",
    "cell",
    "valley",
    "hill",
    "middle",
    "engine",
    "ground",
    "legs",
    "ice",
    "lake",
    "maze",
}

DIR_SETS2 = (
    ("left", "right"),
    ("up", "down"),
    ("north", "south"),
    ("east", "west"),
    ("forward", "backward"),
    ("inward", "outward"),
)
DIR_SETS4 = (("left", "down", "right", "up"), ("north", "south", "east", "west"))
OPPOSITE = {a: b for p in DIR_SETS2 for a, b in (p, p[::-1])}

# (participle, third person) of verbs a status uses for a direction
MOTION = (
    ("moving", "moves"),
    ("falling", "falls"),
    ("drifting", "drifts"),
    ("rolling", "rolls"),
    ("sliding", "slides"),
    ("turning", "turns"),
    ("tilting", "tilts"),
    ("leaning", "leans"),
    ("heading", "heads"),
    ("swinging", "swings"),
    ("spinning", "spins"),
    ("sinking", "sinks"),
    ("floating", "floats"),
    ("pointing", "points"),
    ("tipping", "tips"),
    ("veering", "veers"),
    ("wobbling", "wobbles"),
    ("creeping", "creeps"),
    ("flowing", "flows"),
    ("bending", "bends"),
    ("sagging", "sags"),
    ("swerving", "swerves"),
    ("running", "runs"),
    ("flying", "flies"),
    ("walking", "walks"),
    ("gliding", "glides"),
    ("climbing", "climbs"),
    ("shifting", "shifts"),
)
ACTIONS = (
    "push",
    "pull",
    "steer",
    "turn",
    "walk",
    "go",
    "move",
    "roll",
    "lean",
    "tilt",
    "swing",
    "nudge",
    "drive",
    "jump",
    "paddle",
    "row",
    "shift",
    "slide",
    "kick",
    "fly",
    "swim",
    "step",
    "run",
    "press",
    "throw",
    "aim",
    "crawl",
    "hop",
    "dash",
    "glide",
)
MODS = (
    "slightly",
    "a bit",
    "far",
    "fast",
    "slowly",
    "quickly",
    "very fast",
    "hard",
    "gently",
    "a little",
    "sharply",
    "barely",
    "strongly",
)
TOO = ("too fast", "too slowly", "too far {D}", "too much", "too hard", "too high", "too low", "too early")
STATES = (
    "is nearly upright",
    "is steady",
    "is level",
    "is calm",
    "is at rest",
    "is still",
    "is low",
    "is high",
    "is idle",
    "is balanced",
    "is safe",
    "is quiet",
    "stays put",
    "is resting",
)
PLACES = (
    "high above the {N}",
    "low above the {N}",
    "near the {N}",
    "close to the {N}",
    "far from the {N}",
    "halfway up the {N}",
    "deep in the {N}",
    "next to the {N}",
    "on the {N}",
    "under the {N}",
    "high up a {N}",
    "low in the {N}",
    "{K} {U} away",
    "{K} {U} from the {N}",
    "at the edge of the {N}",
)
# Stage.more_places: more place phrases, with part nouns ("along the bottom of the N"): a place
# phrase the tables never wrote tipped mountaincar's rephrased "moving right" items to "push left"
PLACE_PARTS = ("bottom", "top", "foot", "middle", "side", "end", "rim", "floor", "center", "far end", "base")
MORE_PLACES = PLACES + (
    "at the {P} of the {N}",
    "along the {P} of the {N}",
    "on the {P} of the {N}",
    "down at the {P} of the {N}",
    "up at the {P} of the {N}",
    "across the {P} of the {N}",
    "over the {N}",
    "by the {N}",
    "through the {N}",
    "above the {N}",
    "below the {N}",
)
# Stage.place_forms: a place's direction in other words (scene direction sets never hold above / below)
PLACE_DIR_FORMS = {
    "down": ("below", "downward", "beneath", "underneath", "down below", "further down"),
    "up": ("above", "upward", "overhead", "up above", "further up"),
    "left": ("to the left", "on the left", "off to the left", "on the left side", "leftward"),
    "right": ("to the right", "on the right", "off to the right", "on the right side", "rightward"),
    "north": ("to the north", "northward"),
    "south": ("to the south", "southward"),
    "east": ("to the east", "eastward"),
    "west": ("to the west", "westward"),
    "forward": ("ahead", "in front"),
    "backward": ("behind", "at the back"),
    "inward": ("inside", "further in"),
    "outward": ("outside", "further out"),
}
UNITS = ("steps", "meters", "cells", "feet", "tiles", "blocks", "yards", "squares")
PLACE_VERBS = ("lies", "is", "sits", "waits", "stands", "shows", "appears", "remains")
SEPS = (", ", " and ", ", ", "; ", ", and ")
ADJECTIVES = (
    "open",
    "small",
    "big",
    "old",
    "red",
    "blue",
    "green",
    "little",
    "long",
    "main",
    "dark",
    "bright",
    "heavy",
    "light",
    "narrow",
    "wide",
    "empty",
    "full",
    "round",
    "flat",
    "top",
    "front",
    "back",
    "lower",
)
NEUTRAL = ("do nothing", "wait", "stay still", "hold still", "rest")
# Stage.default_text: an "otherwise" option's text need not be idle. With NEUTRAL's four
# trainable phrases ("do nothing" is a built-in option text, held out) the model found the
# default by its text: any other idle text ("do nothing", "coast", "no action") was answered
# with another letter, which failed lunarlander's exam relabelled (35 of 240 letterings). These texts
# share no word with STATES, so a default situation never names its option.
IDLE = (
    "keep going",
    "carry on",
    "coast",
    "hover",
    "pause",
    "hold on",
    "stand by",
    "sit tight",
    "hold position",
    "freeze",
    "let it be",
    "leave it",
    "stay the course",
    "no change",
    "skip",
    "pass",
    "ignore it",
    "no action",
    "keep on",
    "go on",
    "hang on",
    "hold back",
    "stop",
)


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


_NOUNS: list[str] | None = None


def _nouns() -> list[str]:
    """Common nouns (WordNet noun lemmas among the 1,500 most frequent words), task nouns out."""
    global _NOUNS
    if _NOUNS is None:
        nouns = _wordnet_nouns()
        skip = (
            TASK_NOUNS | {d for s in DIR_SETS2 for d in s} | {"still", "steady", "way", "direction", "thing"}
        )
        _NOUNS = sorted(w for w in W.common_words(3000) if w in nouns and w not in skip and len(w) >= 3)
    return _NOUNS


@functools.lru_cache(maxsize=None)
def wordnet_lemmas(pos: str) -> frozenset[str]:
    """Every lemma of WordNet's index for one part of speech ("noun", "verb", "adj")."""
    lemmas = set()
    with open(f"{W.WORDNET_DIR}/index.{pos}", encoding="latin-1") as f:
        for line in f:
            if not line.startswith(" "):
                lemmas.add(line.split(" ", 1)[0])
    return frozenset(lemmas)


def _wordnet_nouns() -> frozenset[str]:
    return wordnet_lemmas("noun")


@functools.lru_cache(maxsize=None)
def _rare_nouns(split: str) -> tuple[str, ...]:
    """Every WordNet noun among the dictionary words of one side of the split (~16k), task nouns out."""
    nouns = _wordnet_nouns()
    return tuple(w for w in W.split_words(split) if w in nouns and w not in TASK_NOUNS)


class _Words:
    """Distinct nouns for one table; `place_pool`: the share of place nouns drawn from every
    dictionary word of the split instead (mostly rare words with barely trained tokens)."""

    def __init__(self, rng: random.Random, place_pool: float = 0.0, more_places: bool = False):
        self.rng, self.used, self.place_pool, self.more_places = rng, set(), place_pool, more_places

    def subject(self) -> str:
        """A noun, sometimes with an adjective in front ("the open door")."""
        n = self.noun()
        return f"{self.rng.choice(ADJECTIVES)} {n}" if self.rng.random() < 0.25 else n

    def noun(self) -> str:
        while True:
            w = self.rng.choice(_nouns())
            if w not in self.used:
                self.used.add(w)
                return w


def _letters(rng: random.Random, n: int, shuffled: float) -> list[str]:
    if rng.random() < shuffled:
        ls = sorted(rng.sample("ABCDEF", n))
        if rng.random() < 0.5:
            rng.shuffle(ls)
        return ls
    return list("ABCDEF"[:n])


def _place(rng: random.Random, words: _Words) -> str:
    p = rng.choice(MORE_PLACES if words.more_places else PLACES)
    if "{P}" in p:
        p = p.replace("{P}", rng.choice(PLACE_PARTS))
    # a rare noun teaches that a place's noun never decides ("high up a hill" once read as
    # "push right"); drawn only when asked, so the other stages keep their streams
    rare = words.place_pool and rng.random() < words.place_pool
    noun = rng.choice(_rare_nouns(W.current_split())) if rare else words.noun()
    return p.replace("{N}", noun).replace("{K}", str(rng.randint(1, 20))).replace("{U}", rng.choice(UNITS))


def _join(rng: random.Random, head: str, tail: list[str]) -> str:
    s = head
    for t in tail:
        s += rng.choice(SEPS) + t
    return s
