"""Scene tables: rules and situations written as short plain-English sentences about a thing
that moves, leans, sinks or lies somewhere, the register a perceiver writes in.

The other table kinds (tables.py) pair random content words; a rule a user writes reads
"If the pole is falling left, choose A." and a status "the pole is falling left and leans
slightly right". Here the subject, verbs, things, option verbs and numbers are drawn from
word lists, and the skill is the same: find the clause whose words the situation holds
(down to the word after the verb, when two clauses differ only there), or follow a
relational rule (same way, opposite way, toward / away from a named thing) to the option
whose text holds the direction. The built-in tasks' own nouns are never subjects or things
here, and every text still passes the held-out 6-gram filter.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from . import marks
from . import reword as R
from . import wordlists as W
from .events import EventKnobs, event_table
from .phrases import (
    ACTIONS,
    ADJECTIVES,
    DIR_SETS2,
    DIR_SETS4,
    IDLE,
    MODS,
    MOTION,
    NEUTRAL,
    OPPOSITE,
    PLACE_DIR_FORMS,
    PLACE_VERBS,
    STATES,
    TOO,
    UNITS,
    _cap,
    _join,
    _letters,
    _place,
    _rare_nouns,
    _Words,
)
from .table import Option, Table

CLAUSE_T = (
    "If the {S} {P}, choose {L}.",
    "When the {S} {P}, choose {L}.",
    "If the {S} {P}, pick {L}.",
    "If the {S} {P}, answer {L}.",
    "Choose {L} when the {S} {P}.",
    "If the {S} {P}, take {L}.",
    "When the {S} {P}, answer {L}.",
    "If the {S} {P} then choose {L}.",
)
ACTION_CLAUSE_T = (
    "If the {S} {P}, {T}.",
    "When the {S} {P}, {T}.",
    "If the {S} {P} then {T}.",
    "{Tc} when the {S} {P}.",
    "{Tc} if the {S} {P}.",
)
DEFAULT_T = (
    "Otherwise choose {L}.",
    "Otherwise, choose {L}.",
    "Otherwise pick {L}.",
    "In any other case choose {L}.",
    "Otherwise answer {L}.",
    "Else choose {L}.",
)
SAME_T = (
    "{Ac} in the same direction the {S} is {V}.",
    "{Ac} the same way the {S} is {V}.",
    "{Ac} in the direction the {S} is {V}.",
    "{Ac} where the {S} is {V}.",
    "Go where the {S} is {V}.",
    "Follow the {S}: {A} the way it is {V}.",
    "{Ac} along with the {S} as it is {V}.",
)
SAME_TAIL = (
    "",
    "",
    "",
    ", to build up speed",
    ", to keep it going",
    ", like a pendulum",
    ", to gain momentum",
    ", to follow it",
    ", to keep up",
)
OPP_T = (
    "{Ac} in the opposite direction the {S} is {V}.",
    "{Ac} against the way the {S} is {V}.",
    "{Ac} the other way from where the {S} is {V}.",
    "{Ac} opposite to the {S}'s motion.",
)
TOWARD_T = (
    "{Ac} toward the {G}.",
    "{Ac} toward the {G} and never {A2} into the {H}.",
    "{Ac} toward the {G} and stay away from the {H}.",
    "Head for the {G}.",
    "{Ac} to the {G}.",
    "{Ac} toward the {G} over safe {N} and never {A2} into a {H}.",
    "Always {A} toward the {G}.",
)
AWAY_T = (
    "{Ac} away from the {G}.",
    "Keep away from the {G}: {A} the other way.",
    "{Ac} away from the {G}, never toward it.",
)


# clause_marked: 0 no clause marks, 1 the option a clause names (stages 52-53), 2 its condition
# too (stages 54-55); see corpus/marks.py
def _named(on: int, text: str, letter: str) -> str:
    """A rule clause's option (letter or text), clause-marked in clause-marked stages."""
    return marks.clause(text, letter) if on else text


def _cond(on: int, text: str, letter: str) -> str:
    """A rule clause's condition, clause-marked too at level 2 (stages 54-55)."""
    return marks.clause(text, letter) if on > 1 else text


def _tail_phrases(
    rng: random.Random, words: _Words, dirs, skip_verb: str, k: int, skip_verbs: tuple[str, ...] = ()
) -> list[str]:
    """Distractor phrases: another verb with any direction, a state, a place, a number."""
    out = []
    for _ in range(k):
        r = rng.random()
        if r < 0.45:
            v = rng.choice([m for m in MOTION if m[0] != skip_verb and m[0] not in skip_verbs])
            mod = rng.choice(MODS) + " " if rng.random() < 0.5 else ""
            if rng.random() < 0.5:
                out.append(f"{v[1]} {mod}{rng.choice(dirs)}")
            else:
                out.append(f"{v[0]} {mod}{rng.choice(dirs)}")
        elif r < 0.65:
            out.append(rng.choice(STATES))
        elif r < 0.8:
            out.append(_place(rng, words))
        elif r < 0.9 or not dirs:
            out.append(_aside(rng, words))
        else:
            out.append(f"the {words.noun()} is {rng.choice(dirs)}")
    return out


MEMORY = (
    "you were here once before",
    "you were here twice before",
    "you were here {K} times before",
    "this {N} is new",
    "you saw this {N} {K} times",
    "the {N} is new to you",
    "first time at this {N}",
)


def _aside(rng: random.Random, words: _Words) -> str:
    """A phrase about something else: a distance to another thing, or what memory says."""
    if rng.random() < 0.5:
        return f"the {words.noun()} is {rng.randint(1, 20)} {rng.choice(UNITS)} away"
    return rng.choice(MEMORY).replace("{N}", words.noun()).replace("{K}", str(rng.randint(3, 9)))


def _default_text(rng: random.Random, default_text: float, act: str, texts: list[str]) -> str:
    """The "otherwise" option's text: one of NEUTRAL's, or with prob. `default_text` an action
    like the clauses' own, another idle phrase or an action on a dictionary noun (rare tokens),
    so only the rule's letter can tell which option is the default."""
    if not (default_text and rng.random() < default_text):
        return rng.choice(NEUTRAL)
    while True:
        r = rng.random()
        if r < 0.4:
            t = f"{rng.choice((act, rng.choice(ACTIONS)))} {rng.choice(ADJECTIVES)}"
        elif r < 0.7:
            t = rng.choice(IDLE)
        else:
            t = f"{rng.choice(ACTIONS)} the {rng.choice(_rare_nouns(W.current_split()))}"
        if t not in texts:
            return t


def _slot_options(
    rng: random.Random,
    letters: list[str],
    texts: list[str],
    default: bool,
    shuffle: bool,
    default_text: float = 0.0,
    act: str = "",
):
    """Puts clause i's option text (and a default last) into lettered slots, in a random order
    when `shuffle`, so neither a clause's place nor "the default is the last option" can stand
    in for reading the letter. -> (options by letter slot, options by clause)."""
    n = len(texts) + (1 if default else 0)
    slots = list(range(n))
    if shuffle:
        rng.shuffle(slots)
    slot_text = [""] * n
    for i, t in enumerate(texts):
        slot_text[slots[i]] = t
    if default:
        slot_text[slots[-1]] = _default_text(rng, default_text, act, texts)
    by_slot = [Option(letters[k], slot_text[k]) for k in range(n)]
    return by_slot, [by_slot[slots[i]] for i in range(n)]  # [i]: clause i's option; [-1]: the default


def clause_table(
    rng: random.Random,
    shuffled: float,
    place_pool: float = 0.0,
    clause_marked: int = 0,
    more_places: bool = False,
    default_text: float = 0.0,
):
    """'If the S is V-ing D1, choose A. If the S is V-ing D2, choose B.' (optionally a default):
    the clauses can differ only in the direction after the verb, and situations add
    distractor phrases holding the other directions."""
    words = _Words(rng, place_pool, more_places)
    subj = words.subject()
    dirs = list(rng.choice(DIR_SETS2 + DIR_SETS4))
    n_dir = rng.randint(2, len(dirs))
    dirs_used = rng.sample(dirs, n_dir)
    verb, conds = _direction_conds(rng, dirs_used)
    default = rng.random() < 0.3
    n = len(conds) + (1 if default else 0)
    letters = _letters(rng, n, shuffled)
    act, texts = _direction_texts(rng, words, dirs_used)
    # which option each clause (and the default) names: any slot, so neither the clause's
    # place nor "the default is the last option" can stand in for reading the letter
    by_slot, opts = _slot_options(rng, letters, texts, default, rng.random() < 0.6, default_text, act)
    rule = _clause_rule(rng, subj, conds, opts, default, clause_marked)
    shown = sorted(by_slot, key=lambda o: o.letter) if rng.random() < 0.7 else by_slot

    def situation(r: random.Random):
        if default and r.random() < 1.0 / n:
            head = f"the {subj} {r.choice(STATES)}"
            letter = opts[-1].letter
        else:
            i = r.randrange(len(conds))
            c = conds[i]
            if r.random() < 0.3 and c.split()[-1] in dirs:
                c = c + " " + r.choice(MODS)
            head = f"the {subj} {c}"
            letter = opts[i].letter
        tail = _tail_phrases(r, words, dirs, verb[0], r.randint(0, 3))
        s = _join(r, head, tail)
        return (marks.from_clause(s) if clause_marked else s), letter

    return Table("scene", rule, shown, situation)


def _direction_conds(rng: random.Random, dirs_used: list[str]) -> tuple[tuple[str, str], list[str]]:
    """A clause table's conditions, one a direction: the same verb with different directions, or
    different verbs / forms -> (the verb, the conditions)."""
    verb = rng.choice(MOTION)
    conds = []
    mixed = rng.random() < 0.4
    for d in dirs_used:
        if mixed:
            v = rng.choice(MOTION)
            form = rng.random()
            if form < 0.4:
                conds.append(f"{v[1]} {rng.choice(TOO).replace('{D}', d)}")
            elif form < 0.7:
                conds.append(f"is {v[0]} {d}")
            else:
                conds.append(f"{v[1]} {d}")
        else:
            conds.append(f"is {verb[0]} {d}" if rng.random() < 0.8 else f"{verb[1]} {d}")
    if len(set(conds)) < len(conds):
        conds = [f"is {verb[0]} {d}" for d in dirs_used]
    return verb, conds


def _direction_texts(rng: random.Random, words: _Words, dirs_used: list[str]) -> tuple[str, list[str]]:
    """A clause table's option texts, one a direction each -> (the action, the texts)."""
    act = rng.choice(ACTIONS)
    obj = words.noun() if rng.random() < 0.5 else ""
    # option directions: the clause's own (most rules read so), its opposite, or a permutation,
    # so the letter must come from the clause, never from the option text alone
    r = rng.random()
    if r < 0.6:
        ddirs = dirs_used
    elif r < 0.8:
        ddirs = [OPPOSITE[d] for d in dirs_used]
    else:
        ddirs = rng.sample(dirs_used, len(dirs_used))
    mid = obj and rng.random() < 0.4  # "fire the left engine" as well as "push the cart left"
    texts = [
        (f"{act} the {dd} {obj}" if mid else f"{act} the {obj} {dd}") if obj else f"{act} {dd}"
        for dd in ddirs
    ]
    return act, texts


def _clause_rule(
    rng: random.Random, subj: str, conds: list[str], opts: list[Option], default: bool, clause_marked: int
) -> str:
    """A clause table's rule: a clause for each condition (in a random order 40 % of the time),
    then the default's."""
    tpl = rng.choice(CLAUSE_T)
    clauses = [
        tpl.replace("{S}", subj)
        .replace("{P}", _cond(clause_marked, c, opts[i].letter))
        .replace("{L}", _named(clause_marked, opts[i].letter, opts[i].letter))
        for i, c in enumerate(conds)
    ]
    order = list(range(len(clauses)))
    if rng.random() < 0.4:
        rng.shuffle(order)
    rule = " ".join(clauses[i] for i in order)
    if default:
        rule += " " + rng.choice(DEFAULT_T).replace(
            "{L}", _named(clause_marked, opts[-1].letter, opts[-1].letter)
        )
    return rule


def relational_table(
    rng: random.Random,
    shuffled: float,
    level: int = 2,
    place_pool: float = 0.0,
    marked: bool = False,
    clause_marked: int = 0,
    more_places: bool = False,
    hazard_first: float = 0.0,
    place_forms: float = 0.0,
):
    """Same way / opposite way as the subject moves, or toward / away from a named thing; the
    answer is the option whose text holds the direction. Optional extra clauses name an
    option by its text for a state with no motion ('If the S is still left of the N, push right.')."""
    words = _Words(rng, place_pool, more_places)
    mode = _relational_mode(rng, level)
    dirs = list(rng.choice(DIR_SETS2 + DIR_SETS4 + DIR_SETS4))
    act = rng.choice(ACTIONS)
    neutral = level > 0 and rng.random() < (0.35 if level < 3 else 0.6 if level < 6 else 0.85)
    texts = [f"{act} {d}" for d in dirs] + ([rng.choice(NEUTRAL)] if neutral else [])
    order = list(range(len(texts)))
    if level > 0 and rng.random() < 0.5:
        rng.shuffle(order)
    n = len(texts)
    letters = _letters(rng, n, shuffled)
    opts = [Option(letters[i], texts[k]) for i, k in enumerate(order)]
    by_text = {o.text: o for o in opts}
    subj = words.subject()
    verb = rng.choice(MOTION)
    rule, goal, hazard = _relational_rule(rng, words, mode, act, subj, verb)
    # extra clauses: a still subject at a place -> a named option text
    extra_rule, extra = _extra_clauses(
        rng, words, level, mode, neutral, dirs, opts, texts, subj, clause_marked
    )
    rule += extra_rule
    rel = _Relational(
        words=words,
        level=level,
        mode=mode,
        dirs=dirs,
        act=act,
        subj=subj,
        verb=verb,
        goal=goal,
        hazard=hazard,
        by_text=by_text,
        extra=extra,
        clause_marked=clause_marked,
        marked=marked,
        hazard_first=hazard_first,
        place_forms=place_forms,
    )
    return Table("scene", rule, opts, rel.situation)


def _relational_mode(rng: random.Random, level: int) -> str:
    """Which relation the rule states: same / opposite way as the subject moves, or toward /
    away from a named thing."""
    if level == 0:
        return rng.choice(("same", "toward"))
    if level >= 7:  # the lookup drills: every table has still clauses
        return rng.choice(("same", "opposite"))
    return rng.choices(("same", "opposite", "toward", "away"), (0.4, 0.15, 0.3, 0.15))[0]


def _relational_rule(
    rng: random.Random, words: _Words, mode: str, act: str, subj: str, verb: tuple[str, str]
) -> tuple[str, str, str]:
    """The relational rule's sentence, and the goal and hazard it names (toward / away; else "")."""
    fill = {"{Ac}": _cap(act), "{A}": act, "{A2}": rng.choice(ACTIONS), "{S}": subj, "{V}": verb[0]}
    if mode in ("toward", "away"):
        goal, hazard = words.noun(), words.noun()
        fill.update({"{G}": goal, "{H}": hazard, "{N}": words.noun()})
        tpl = rng.choice(TOWARD_T if mode == "toward" else AWAY_T)
    else:
        goal = hazard = ""  # unused: the situations of these modes name the subject
        tpl = rng.choice(SAME_T if mode == "same" else OPP_T)
        if mode == "same":
            tpl = tpl[:-1] + rng.choice(SAME_TAIL) + "."
    rule = tpl
    for k, v in fill.items():
        rule = rule.replace(k, v)
    return _cap(rule), goal, hazard


def _extra_clauses(
    rng: random.Random,
    words: _Words,
    level: int,
    mode: str,
    neutral: bool,
    dirs: list[str],
    opts: list[Option],
    texts: list[str],
    subj: str,
    clause_marked: int,
) -> tuple[str, list[tuple[str, Option]]]:
    """A relational rule's extra clauses, for a subject that does not move: still clauses at a
    place (same / opposite rules), else perhaps one for the neutral option ('If the S is still,
    do nothing.') -> (their text, to append to the rule; (condition, option) of each)."""
    if (
        level > 0
        and mode in ("same", "opposite")
        and rng.random() < (0.4 if level < 3 else 0.85 if level < 7 else 1)
    ):
        return _still_clauses(rng, words, level, neutral, dirs, opts, texts, subj, clause_marked)
    if neutral and rng.random() < 0.5:
        nt = texts[-1]
        by_text = {o.text: o for o in opts}
        nl = by_text[nt].letter
        text = f" If the {subj} {_cond(clause_marked, 'is still', nl)}, {_named(clause_marked, nt, nl)}."
        return text, [("is still", by_text[nt])]
    return "", []


def _still_clauses(
    rng: random.Random,
    words: _Words,
    level: int,
    neutral: bool,
    dirs: list[str],
    opts: list[Option],
    texts: list[str],
    subj: str,
    clause_marked: int,
) -> tuple[str, list[tuple[str, Option]]]:
    """A relational rule's still clauses ('If the S is still left of the N, push right.'):
    -> (their text, to append to the rule; (condition, option) of each)."""
    by_text = {o.text: o for o in opts}
    ref = words.noun()
    still_dirs = rng.sample(dirs, min(2, len(dirs)))
    pair = rng.sample(opts, 2) if level >= 4 else []  # two clauses, two different options
    if level >= 6 and neutral:  # one clause names the neutral option: "still right of the N, do nothing"
        pair = [by_text[texts[-1]], rng.choice([o for o in opts if o.text != texts[-1]])]
        rng.shuffle(pair)
    text, extra = "", []
    for j, d in enumerate(still_dirs):
        target = rng.choice(opts)
        if level == 3 and rng.random() < 0.7:  # "still right of the N, do nothing" beside "push right"
            target = rng.choice([o for o in opts if not o.text.endswith(" " + d)])
        elif level >= 4:  # uniform: no "still d -> not d" shortcut, only the clause tells
            target = pair[j]
        extra.append((f"is still {d} of the {ref}", target))
        tc = rng.choice(ACTION_CLAUSE_T)
        # level 4 names the option by its letter half the time (one lookup, not two); level 5
        # always by its text, where mountaincar's "still right of the middle, do nothing"
        # beside "push right" is weak (0.15-0.52 where letters read 1.00); level 6 mostly by text, and
        # when there is a neutral option one clause names it (the weak shape is "do nothing");
        # level 7 (the drill) always by text, and three situations in four are still ones;
        # level 8 (stage 62) is level 7 by letter half the time, as mountaincar's rule
        if (
            (level == 4 and rng.random() < 0.5)
            or (level == 6 and rng.random() < 0.25)
            or (level == 8 and rng.random() < 0.5)
        ):
            tc = rng.choice(CLAUSE_T).replace("{L}", _named(clause_marked, target.letter, target.letter))
        text += " " + tc.replace("{S}", subj).replace(
            "{P}", _cond(clause_marked, f"is still {d} of the {ref}", target.letter)
        ).replace("{T}", _named(clause_marked, target.text, target.letter)).replace(
            "{Tc}", _named(clause_marked, _cap(target.text), target.letter)
        )
    return text, extra


@dataclass(frozen=True)
class _Relational:
    """A relational table's situations: what relational_table drew, and the draws of each
    situation (a still clause's state, the subject's motion, or a goal and a hazard's places)."""

    words: _Words
    level: int
    mode: str
    dirs: list[str]
    act: str
    subj: str
    verb: tuple[str, str]
    goal: str
    hazard: str
    by_text: dict[str, Option]
    extra: list[tuple[str, Option]]
    clause_marked: int
    marked: bool
    hazard_first: float
    place_forms: float

    def mark_n(self, w: str) -> str:
        return marks.noun(w) if self.marked else w

    def mark_d(self, w: str) -> str:
        return marks.direction(w) if self.marked else w

    def situation(self, r: random.Random) -> tuple[str, str]:
        level = self.level
        if self.extra and r.random() < (
            0.3 if level < 3 else 0.45 if level < 4 else 0.5 if level < 7 else 0.75
        ):
            cond, opt = r.choice(self.extra)
            tail = []
            if r.random() < 0.5:
                tail.append(_place(r, self.words))
            s = _join(r, f"the {self.mark_n(self.subj)} {cond}", tail)
            return (marks.from_clause(s) if self.clause_marked else s), opt.letter
        d = r.choice(self.dirs)
        want = d if self.mode in ("same", "toward") else OPPOSITE[d]
        letter = self.by_text[f"{self.act} {want}"].letter
        if self.mode in ("same", "opposite"):
            return self._moving(r, d), letter
        return self._places(r, d), letter

    def _moving(self, r: random.Random, d: str) -> str:
        """The subject moving in direction d, with distractors."""
        level, words, subj, verb = self.level, self.words, self.mark_n(self.subj), self.verb
        mod = " " + r.choice(MODS) if r.random() < 0.4 else ""
        head = (
            f"the {subj} is {verb[0]} {self.mark_d(d)}{mod}"
            if r.random() < 0.75
            else f"the {subj} {verb[1]} {self.mark_d(d)}{mod}"
        )
        tail = []
        if r.random() < (0.7 if level else 0.3):
            tail.append("is " + _place(r, words) if r.random() < 0.5 else _place(r, words))
        if level and r.random() < 0.3:
            tail.append(f"the {words.noun()} is {r.choice(MOTION)[0]} {r.choice(self.dirs)}")
        if level and r.random() < 0.3:
            tail.append(_aside(r, words))
        return _join(r, head, tail)

    def _places(self, r: random.Random, d: str) -> str:
        """The goal in direction d, perhaps a hazard in another, and how far."""
        level, hazard_first, place_forms, mark_d = (
            self.level,
            self.hazard_first,
            self.place_forms,
            self.mark_d,
        )
        pv = r.choice(PLACE_VERBS)
        goal_m = (
            self.mark_n(self.goal) if hazard_first else self.goal
        )  # (marks here only where the knob is on: older label streams)
        head = f"the {goal_m} {pv} {mark_d(d) if hazard_first else d}"
        parts = [head]
        distance = r.random() < 0.6
        if place_forms and r.random() < place_forms:
            # the distance inside the goal's phrase, the direction in other words ("the goal is 9 steps below")
            k = r.randint(1, 20)
            head = f"the {goal_m} is {k} {r.choice(UNITS)} {mark_d(r.choice(PLACE_DIR_FORMS.get(d, (d,))))}"
            parts, distance = [head], False
        if distance:
            parts.append(f"{r.randint(1, 20)} {r.choice(UNITS)} away")
        hazard_at = -1
        if level and r.random() < 0.6:
            hazard_at = len(parts)
            parts.append(self._hazard(r))
        if level and r.random() < 0.2:
            parts.append(_aside(r, self.words))
        if len(parts) == 3 and r.random() < 0.25:
            parts = [parts[2], parts[0], parts[1]]
        elif hazard_first and hazard_at > 0 and r.random() < hazard_first:
            # the hazard's phrase first, with a direction of its own ("a hole sits to the right, and
            # the goal lies down"): the first direction word is no sign of the answer
            parts = [parts[hazard_at]] + parts[:hazard_at] + parts[hazard_at + 1 :]
        s = parts[0]
        for p in parts[1:]:
            s += r.choice((", ", ", and ", " and ")) + p
        return s

    def _hazard(self, r: random.Random) -> str:
        """The hazard's phrase, in a direction of its own."""
        hazard = self.hazard
        d2 = r.choice(self.dirs)
        if self.place_forms and r.random() < self.place_forms:
            shape = r.choice(("a {H} is {D}", "the {H} lies {D}", "there is a {H} {D}"))
            return shape.replace("{H}", hazard).replace("{D}", r.choice(PLACE_DIR_FORMS.get(d2, (d2,))))
        return r.choice((f"a {hazard} is {d2}", f"the {hazard} is {d2}", f"a {hazard} lies {d2}"))


def mixed_clause_table(
    rng: random.Random,
    shuffled: float,
    place_pool: float = 0.0,
    clause_marked: int = 0,
    more_places: bool = False,
    default_text: float = 0.0,
):
    """3-5 clauses in different forms ("sinks too fast", "leans too far left", "leans too far
    right"), often a default in any slot, and option texts that name directions the clauses
    do not map to by their words ("leans too far left" -> "fire the right thruster"), so the
    letter after the clause must decide, never a word shared with an option's text."""
    words = _Words(rng, place_pool, more_places)
    subj = words.subject()
    dirs = list(rng.choice(DIR_SETS2 + DIR_SETS4))
    # a pair (or more) of clauses sharing verb and form that differ in the direction, plus
    # clauses with other verbs and no direction; all distinct
    v1 = rng.choice(MOTION)
    form = rng.choice(("{v3} too far {d}", "is {v0} {d}", "{v3} {d}", "is {v0} too far {d}", "{v3} {m} {d}"))
    mod = rng.choice(MODS)
    n_pair = rng.randint(2, min(3, len(dirs)))
    conds = [(form.format(v3=v1[1], v0=v1[0], d=d, m=mod), d) for d in rng.sample(dirs, n_pair)]
    verbs = [v1[0]]
    for _ in range(rng.choice((0, 1, 1, 1, 2)) if n_pair < 3 else rng.choice((0, 1))):
        v = rng.choice([m for m in MOTION if m[0] not in verbs])
        verbs.append(v[0])
        too = rng.choice([t for t in TOO if "{D}" not in t])
        conds.append((rng.choice((f"{v[1]} {too}", f"is {v[0]} {too}")), ""))
    rng.shuffle(conds)
    default = rng.random() < 0.6
    n = len(conds) + (1 if default else 0)
    letters = _letters(rng, n, max(shuffled, 0.6))
    act = rng.choice(ACTIONS)
    obj = words.noun() if rng.random() < 0.6 else ""
    adjs = rng.sample(ADJECTIVES, len(conds))
    texts = []
    for (c, d), adj in zip(conds, adjs):
        w = (d if rng.random() < 0.5 else OPPOSITE[d]) if d else adj
        texts.append(w)
    if len(set(texts)) < len(texts):
        texts = [d or adj for (c, d), adj in zip(conds, adjs)]
    if rng.random() < 0.4:
        rng.shuffle(texts)
    mid = obj and rng.random() < 0.6
    texts = [
        (f"{act} the {w} {obj}" if mid else f"{act} the {obj} {w}") if obj else f"{act} {w}" for w in texts
    ]
    by_slot, opts = _slot_options(rng, letters, texts, default, True, default_text, act)
    tpl = rng.choice(CLAUSE_T)
    rule = " ".join(
        tpl.replace("{S}", subj)
        .replace("{P}", _cond(clause_marked, c, opts[i].letter))
        .replace("{L}", _named(clause_marked, opts[i].letter, opts[i].letter))
        for i, (c, _) in enumerate(conds)
    )
    if default:
        rule += " " + rng.choice(DEFAULT_T).replace(
            "{L}", _named(clause_marked, opts[-1].letter, opts[-1].letter)
        )
    shown = sorted(by_slot, key=lambda o: o.letter) if rng.random() < 0.8 else by_slot

    def situation(r: random.Random):
        if default and r.random() < 1.0 / n:
            head, letter = f"the {subj} {r.choice(STATES)}", opts[-1].letter
        else:
            i = r.randrange(len(conds))
            head, letter = f"the {subj} {conds[i][0]}", opts[i].letter
        tail = _tail_phrases(r, words, dirs, "", r.randint(1, 3), skip_verbs=tuple(verbs))
        s = _join(r, head, tail)
        return (marks.from_clause(s) if clause_marked else s), letter

    return Table("scene", rule, shown, situation)


def scene_table(
    rng: random.Random,
    shuffled: float = 0.35,
    level: int = 2,
    rephrase: float = 0.0,
    place_pool: float = 0.0,
    front: float = 0.0,
    reword_level: int = 1,
    marked: bool = False,
    clause_marked: int = 0,
    more_places: bool = False,
    hazard_first: float = 0.0,
    place_forms: float = 0.0,
    default_text: float = 0.0,
    events: float = 0.0,
    event_knobs=None,
):
    """event_knobs: events.EventKnobs for the share `events` of event tables (default: stage 67's)."""
    if events and rng.random() < events:  # (drawn only when asked: the other stages keep their streams)
        return event_table(rng, shuffled, place_pool, event_knobs or EventKnobs())
    t = _scene_table(
        rng,
        shuffled,
        level,
        place_pool,
        marked,
        clause_marked,
        more_places,
        hazard_first,
        place_forms,
        default_text,
    )
    if not rephrase and not front:
        return t  # (no extra draws: the stages without rewording keep their streams)

    def situation(r: random.Random):
        s, letter = t.situation(r)
        # a reworded situation loses its marks (the rewording works on plain words)
        if rephrase:
            s = R.reword(r, marks.strip(s), t.rule, reword_level) if r.random() < rephrase else s
        if front and r.random() < front:
            s = R.front(r, marks.strip(s))
        return s, letter

    return Table(t.kind, t.rule, t.options, situation)


def _scene_table(
    rng: random.Random,
    shuffled: float,
    level: int,
    place_pool: float,
    marked: bool = False,
    clause_marked: int = 0,
    more_places: bool = False,
    hazard_first: float = 0.0,
    place_forms: float = 0.0,
    default_text: float = 0.0,
):
    extra = {"more_places": more_places, "default_text": default_text}
    rel = dict(more_places=more_places, hazard_first=hazard_first, place_forms=place_forms)
    if level >= 7:  # the drills of stages 45 and 62: only tables with still clauses
        return relational_table(rng, shuffled, level, place_pool, marked, clause_marked, **rel)
    if level >= 3:  # stages 13-14: mixed clause tables and still clauses, over the level-2 mix
        r = rng.random()
        if r < (0.45 if level < 4 else 0.35):
            return mixed_clause_table(rng, shuffled, place_pool, clause_marked, **extra)
        if r < 0.7:
            return relational_table(rng, shuffled, level, place_pool, marked, clause_marked, **rel)
        level = 2
    if level <= 1:
        return relational_table(
            rng, 0.0 if level == 0 else shuffled, level, place_pool, marked, clause_marked, **rel
        )
    if rng.random() < 0.55:
        return clause_table(rng, shuffled, place_pool, clause_marked, **extra)
    return relational_table(rng, shuffled, level, place_pool, marked, clause_marked, **rel)
