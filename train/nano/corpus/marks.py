"""Evidence marks: which situation words the answer rests on, for intermediate supervision.

A marked stage wraps the subject's noun and its direction word in private-use sentinels
("\\ue000car\\ue001 is moving \\ue002left\\ue003"). The packer strips them before tokenizing and
turns them into per-token labels for probes on the hidden states (train.py --aux-binding);
the text the model reads is the unmarked one. Why: binding a direction word to its noun is a
composition of two attention steps with no gradient toward either until both exist; the
binding drill stayed at chance for every plain recipe (train/DESIGN.md, "joint"), while a
probe per step ("this token is the rule's noun", then "this is that noun's direction") made a
toy version learnable in 1,000-3,000 steps (a toy probe, diag/probe_binding.py, in git history).

Clause marks go in the rule (the prefix): the option a clause names, by letter or by its text
("If the car is still left of the middle, \ue012push right\ue022."), carries that option's letter
for a probe that reads the letter there (train.py --aux-clause; stages 54-55 mark the clause's
condition with it too); a situation that a clause
answers is wrapped whole (FROM_CLAUSE) so that its answer row can be made to attend to that
named option (train.py --aux-point). Why: a still item needs the clause -> option text ->
letter lookup inside the prefix, and then the situation must pick the clause by its condition;
each is again a two-step composition (lookup by text stayed at 0.48-0.61).
"""

from __future__ import annotations

NOUN = 0  # the rule's subject, where the situation names it
DIRECTION = 1  # the direction word said of that subject
KINDS = 2
CLAUSE = KINDS  # kinds CLAUSE + i: a clause naming the option with letter index i (A = 0 .. F = 5)
LETTERS = 6
FROM_CLAUSE = CLAUSE + LETTERS  # a whole situation that a rule clause answers (train.py --aux-point)
_OPEN = ("\ue000", "\ue002") + tuple(chr(0xE010 + i) for i in range(LETTERS)) + ("\ue030",)
_CLOSE = ("\ue001", "\ue003") + tuple(chr(0xE020 + i) for i in range(LETTERS)) + ("\ue031",)
_ALL = _OPEN + _CLOSE


def noun(text: str) -> str:
    return _OPEN[NOUN] + text + _CLOSE[NOUN]


def direction(text: str) -> str:
    return _OPEN[DIRECTION] + text + _CLOSE[DIRECTION]


def clause(text: str, letter: str) -> str:
    """`text` names the option with this letter (its letter or its text, inside a rule clause)."""
    i = "ABCDEF".index(letter)
    return _OPEN[CLAUSE + i] + text + _CLOSE[CLAUSE + i]


def from_clause(text: str) -> str:
    """The situation's answer is the option a rule clause names (not the relational rule's)."""
    return _OPEN[FROM_CLAUSE] + text + _CLOSE[FROM_CLAUSE]


def has_marks(text: str) -> bool:
    return any(c in text for c in _ALL)


def strip(text: str) -> str:
    for c in _ALL:
        text = text.replace(c, "")
    return text


def capitalize(text: str) -> str:
    """Upper-case the first letter, looking past a leading mark."""
    i = 0
    while i < len(text) and text[i] in _ALL:
        i += 1
    return text[:i] + text[i : i + 1].upper() + text[i + 1 :]


def spans(text: str) -> tuple[str, list[tuple[int, int, int]]]:
    """-> (text without marks, [(byte start, byte end, kind)]) in UTF-8 bytes of that text."""
    out, found, open_at = [], [], {}
    nbytes = 0
    for c in text:
        if c in _OPEN:
            open_at[_OPEN.index(c)] = nbytes
        elif c in _CLOSE:
            k = _CLOSE.index(c)
            if k not in open_at:
                raise ValueError(f"unbalanced mark in {text!r}")
            found.append((open_at.pop(k), nbytes, k))
        else:
            out.append(c)
            nbytes += len(c.encode("utf-8"))
    if open_at:
        raise ValueError(f"unbalanced mark in {text!r}")
    return "".join(out), found
