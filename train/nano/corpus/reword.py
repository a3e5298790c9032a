"""Rewording a scene situation without changing what it says: the way people (and other
perceivers) describe the same state in other words and another order.

The rephrasing row of issue 4's table (heldout/rephrased.txt) has situations such as
"tilted slightly left, the pole falls over to the right" for a rule written as "If the pole
is falling right ...". A model trained only on the generator's own phrasing matches the
rule's words literally; these rewrites teach that "to the left", "leftward" and "left" are one
direction, that a motion verb has synonyms, and that the phrase holding the condition is not
always the first one.

Rewrites: direction phrasing in the condition's phrase ("left" -> "to the left", "leftward"),
the head verb by a synonym that no other verb of the table can mean, a distractor phrase
moved to the front as a participle ("leaning far left, the X is ..."), a distractor joined
as a concession ("... although it leans right"), and "is still" by "is not moving" / "stands
still". The synonyms are never MOTION verbs themselves, so a distractor phrase never holds one.
"""

from __future__ import annotations

import random
import re

from .phrases import MOTION, _join

# participle -> [(participle, third person)] of verbs (or phrasal verbs) that mean the same
SYNONYMS = {
    "moving": [("going", "goes"), ("travelling", "travels")],
    "falling": [
        ("toppling", "topples"),
        ("tumbling", "tumbles"),
        ("keeling over", "keels over"),
        ("dropping", "drops"),
        ("toppling over", "topples over"),
    ],
    "rolling": [("coasting", "coasts"), ("rolling along", "rolls along")],
    "sliding": [("slipping", "slips"), ("skidding", "skids")],
    "leaning": [("listing", "lists"), ("slanting", "slants")],
    "tilting": [("slanting", "slants"), ("canting", "cants")],
    "flying": [("soaring", "soars")],
    "running": [("racing", "races"), ("dashing", "dashes")],
    "walking": [("strolling", "strolls"), ("marching", "marches")],
    "creeping": [("inching", "inches"), ("crawling", "crawls")],
    "spinning": [("whirling", "whirls"), ("rotating", "rotates")],
    "turning": [("rotating", "rotates"), ("pivoting", "pivots")],
    "swinging": [("swaying", "sways")],
    "wobbling": [("rocking", "rocks"), ("shaking", "shakes")],
    "drifting": [("coasting", "coasts"), ("wandering", "wanders")],
    "heading": [("going", "goes"), ("travelling", "travels")],
    "floating": [("hovering", "hovers")],
    "gliding": [("sailing", "sails")],
}
# level 2 (stage 42) adds these: everyday synonyms the level-1 lists lack (the hand rephrasings
# missed "races", "comes down", "leads", "too quickly"), never a MOTION verb, never an ACTION
SYNONYMS2 = {
    "moving": [("racing", "races"), ("speeding", "speeds"), ("cruising", "cruises"), ("rushing", "rushes")],
    "sinking": [
        ("dropping", "drops"),
        ("descending", "descends"),
        ("coming down", "comes down"),
        ("plunging", "plunges"),
    ],
    "falling": [("coming down", "comes down"), ("plunging", "plunges")],
    "heading": [("leading", "leads"), ("trending", "trends")],
    "climbing": [("rising", "rises"), ("ascending", "ascends")],
    "tipping": [("toppling", "topples"), ("keeling over", "keels over")],
    "rolling": [("trundling", "trundles")],
    "flowing": [("streaming", "streams")],
    "running": [("sprinting", "sprints")],
    "flying": [("zooming", "zooms")],
}
# modifier -> the same amount in other words (level 2), longest first so "too fast" is one unit
MOD_SYNONYMS = {
    "too slowly": ("too slow",),
    "too fast": ("too quickly", "too rapidly"),
    "very fast": ("really fast", "at great speed"),
    "a little": ("a bit", "slightly"),
    "a bit": ("slightly", "a little"),
    "slightly": ("a bit", "a little"),
    "fast": ("quickly", "rapidly", "at speed"),
    "quickly": ("fast", "rapidly"),
    "slowly": ("at a slow pace", "at a crawl"),
    "barely": ("hardly", "only just"),
}
_MOD_RE = re.compile(r"\b(" + "|".join(sorted(MOD_SYNONYMS, key=len, reverse=True)) + r")\b")
_FILLER = {"too", "a", "at", "only"}
_THIRD = {v0: v3 for v0, v3 in MOTION}
_FROM_THIRD = {v3: v0 for v0, v3 in MOTION}

# direction word -> other ways to write it after a verb or a modifier
_DIR_FORMS = {
    "left": ("to the left", "leftward", "over to the left", "toward the left", "off to the left"),
    "right": ("to the right", "rightward", "over to the right", "toward the right", "off to the right"),
    "up": ("upward", "upwards"),
    "down": ("downward", "downwards"),
    "north": ("to the north", "northward", "toward the north"),
    "south": ("to the south", "southward", "toward the south"),
    "east": ("to the east", "eastward", "toward the east"),
    "west": ("to the west", "westward", "toward the west"),
}
# a direction word that ends a phrase (so "the left door" is never touched)
_DIR_RE = re.compile(
    r"\b(left|right|up|down|north|south|east|west)\b(?=$|[,;]| and | although | though | while )"
)
_OF_RE = re.compile(r"\b(left|right) of the\b")
_STILL = ("is not moving", "stands still", "is at rest", "sits still", "is not moving at all")
_STILL_AT = ("is not moving and sits", "stands still", "is at rest", "sits still", "is not moving,")
_CONCEDE = (" although it ", " though it ", " even though it ", " while it ")


def _synonyms(verb: str, level: int) -> list[tuple[str, str]]:
    return SYNONYMS.get(verb, []) + (SYNONYMS2.get(verb, []) if level >= 2 else [])


def _verb_synonym(r: random.Random, head_verb: str, rule: str, level: int = 1) -> tuple[str, str] | None:
    """A synonym of head_verb that no other verb in the rule could also be read as."""
    known = set(SYNONYMS) | (set(SYNONYMS2) if level >= 2 else set())
    others = {v for v in known if v != head_verb and (v in rule or _THIRD[v] in rule)}
    taken = {s for v in others for s, _ in _synonyms(v, level)}
    ok = [s for s in _synonyms(head_verb, level) if s[0] not in taken and s[0].split()[0] not in rule]
    return r.choice(ok) if ok else None


def _swap_modifier(r: random.Random, head: str, rule: str) -> str:
    """'sinks too fast' -> 'sinks too quickly' unless the rule uses the new words itself (a
    table may tell "fast" from "quickly" apart only if both are in its rule)."""
    words = set(re.findall(r"[a-z]+", rule.lower()))

    def swap(m: re.Match) -> str:
        ok = [w for w in MOD_SYNONYMS[m.group(1)] if not (set(w.split()) - _FILLER) & words]
        return r.choice(ok) if ok else m.group(1)

    return _MOD_RE.sub(swap, head, count=1)


def _swap_verb(r: random.Random, head: str, rule: str, level: int = 1) -> str:
    words = head.split(" ")
    for i, w in enumerate(words):
        v0 = w if w in _THIRD else _FROM_THIRD.get(w)
        if v0 is None:
            continue
        syn = _verb_synonym(r, v0, rule, level)
        if syn is None:
            return head
        words[i] = syn[0] if w == v0 else syn[1]
        return " ".join(words)
    return head


def _directions(r: random.Random, s: str, p: float) -> str:
    s = _OF_RE.sub(
        lambda m: r.choice((f"to the {m.group(1)} of the", f"on the {m.group(1)} side of the"))
        if r.random() < p
        else m.group(0),
        s,
    )
    return _DIR_RE.sub(lambda m: r.choice(_DIR_FORMS[m.group(1)]) if r.random() < p else m.group(1), s)


def _participle(phrase: str) -> str | None:
    """'leans far left' -> 'leaning far left', 'is high above the N' -> 'high above the N'."""
    first, _, rest = phrase.partition(" ")
    if first in _FROM_THIRD:
        return f"{_FROM_THIRD[first]} {rest}".strip()
    if first == "is" and rest:
        return rest
    return None


def _split(sentence: str) -> tuple[str, list[str]]:
    """'the S <cond><sep><tail>...' -> (head, tails), split at the separators _join uses."""
    parts = re.split(r"(, and |, | and |; )", sentence)
    return parts[0], [parts[i + 1] for i in range(1, len(parts) - 1, 2)]


def front(r: random.Random, sentence: str) -> str:
    """Only the fronting rewrite: the first distractor or place phrase before the subject
    ("high on a N, the S is moving left"); the words of every phrase stay as they were."""
    head, tails = _split(sentence)
    p = _participle(tails[0]) if tails else None
    return f"{p}, {_join(r, head, tails[1:])}" if p else sentence


def reword(r: random.Random, sentence: str, rule: str, level: int = 1) -> str:
    """The same situation in other words (the first phrase is the one a scene table's
    situation builds from the condition; the rest are distractors or places). Level 2 also
    swaps modifiers, rewrites distractors' directions (so "to the right" is no sign of the
    condition's phrase) and sometimes puts a distractor first as a whole clause."""
    head, tails = _split(sentence)
    if r.random() < 0.5:
        head = _swap_verb(r, head, rule, level)
    head = _directions(r, head, 0.5)  # level 1: the condition's phrase only, distractors keep theirs
    if level >= 2:
        if r.random() < 0.5:
            head = _swap_modifier(r, head, rule)
        tails = [_directions(r, t, 0.3) for t in tails]
    if " is still" in head and r.random() < 0.5:
        place = " is still " in head  # "is still left of the N" (a place follows)
        head = head.replace(" is still", " " + r.choice(_STILL_AT if place else _STILL), 1)
    fronted, concede = None, None
    if tails and r.random() < 0.35:
        p = _participle(tails[0])
        if p:
            fronted, tails = p, tails[1:]
    if tails and r.random() < 0.3 and tails[-1].split(" ", 1)[0] in _FROM_THIRD:
        concede, tails = tails[-1], tails[:-1]
    whole = None  # level 2: a whole clause first ("a hole sits to the right, and the goal is ...")
    if level >= 2 and not fronted and tails and r.random() < 0.2:
        i = r.randrange(len(tails))
        first = tails[i].split(" ", 1)[0]
        if first not in _FROM_THIRD and first != "is":  # a bare verb phrase needs its subject after it
            whole, tails = tails[i], tails[:i] + tails[i + 1 :]
    out = _join(r, head, tails)
    if whole:
        full = whole.split(" ", 1)[0] in ("the", "a")  # a clause of its own may take "and"
        out = whole + r.choice(("; ", ", and ", ", ") if full else ("; ", ", ")) + out
    if concede:
        out += r.choice(_CONCEDE) + concede
    if fronted:
        out = f"{fronted}, {out}"
    return out
