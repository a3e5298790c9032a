"""Event tables: rules in everyday English whose clauses name different things doing different
things ("If the kettle is whistling, choose A; if the bread is burning, choose B; otherwise C.").

The scene tables (scenes.py) keep one subject per table and the match tables (tables.py) use
bare content words, so a rule whose conditions are whole small sentences about several things
was read near chance (0.53; the runtime test's kettle / river tables). Here a condition is a
noun with a predicate ("is whistling", "barks", "is dry"); clauses may share a noun or a
predicate, so only the pair decides; a situation states one condition among other events, some
of them the rule's nouns doing something else or the rule's predicates said of other nouns.
"""

from __future__ import annotations

import functools
import os
import random
from dataclasses import dataclass

from ..tokenizer.bpe import Tokenizer
from . import marks as M
from . import wordlists as W
from .phrases import ACTIONS, IDLE, _cap, _letters, _place, _Words, wordnet_lemmas
from .table import Option, Table

TEMPLATES = (
    "If the {N} {P}, choose {L}",
    "When the {N} {P}, choose {L}",
    "If the {N} {P}, pick {L}",
    "When the {N} {P} choose {L}",
    "If the {N} {P} then answer {L}",
    "Choose {L} if the {N} {P}",
    "If the {N} {P}, {L}",
    "Pick {L} when the {N} {P}",
)
JOINS = (". ", "; ", ", ", ". ", "; ")
DEFAULTS = (
    "otherwise choose {L}",
    "otherwise {L}",
    "else pick {L}",
    "in any other case choose {L}",
    "otherwise answer {L}",
)
LEADS = ("", "", "", "Now ", "Look: ", "You see that ", "Right now ", "It seems ")
PREPS = ("at the", "in the", "near the", "by the", "behind the", "on the", "under the", "next to the")
ADVERBS = (
    "loudly",
    "fast",
    "again",
    "now",
    "slowly",
    "a lot",
    "quietly",
    "badly",
    "all the time",
    "once more",
)
QUIET = (
    "all is calm",
    "nothing happens",
    "everything is quiet",
    "nothing is going on",
    "all is well",
    "nothing changes",
)


def _doubles(w: str) -> bool:
    """Would the -ing form double the last consonant (run -> running)? Such verbs are said with -s."""
    v = "aeiou"
    return len(w) >= 3 and w[-1] not in v + "wxy" and w[-2] in v and w[-3] not in v


@functools.lru_cache(maxsize=None)
def _predicates(split: str) -> tuple[str, ...]:
    """'is V-ing' / 'V-s' for WordNet verbs and 'is A' for WordNet adjectives, among frequent words."""
    verbs, adjs = wordnet_lemmas("verb"), wordnet_lemmas("adj")
    preds = []
    for w in W.common_words(3000, split):
        if len(w) < 3:
            continue
        if w in verbs:
            forms = W.regular_inflections(w)
            preds.append(forms[0])  # barks
            if not _doubles(w):
                preds.append("is " + forms[-1])  # is barking
        elif w in adjs:
            preds.append("is " + w)
    return tuple(sorted(set(preds)))


@functools.lru_cache(maxsize=None)
def _forms(split: str) -> tuple[tuple[str, ...], ...]:
    """The predicates by form: 'is V-ing', 'V-s', 'is A' (adjectives ending in -ing count as -ing)."""
    preds = _predicates(split)
    ing = tuple(p for p in preds if p.startswith("is ") and p.endswith("ing"))
    adj = tuple(p for p in preds if p.startswith("is ") and not p.endswith("ing"))
    return ing, tuple(p for p in preds if not p.startswith("is ")), adj


@functools.lru_cache(maxsize=None)
def _same_end(split: str) -> tuple[tuple[str, ...], ...]:
    """The predicates grouped by form and by the last BPE token of their last word ("is burning"
    and "is barking" end in "ing", "is eating" in "ating"); the groups of eight or more."""
    tok = Tokenizer.load(
        os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tokenizer", "vocab.json")
    )
    groups: dict[tuple[int, int], list[str]] = {}
    for f, form in enumerate(_forms(split)):
        for p in form:
            groups.setdefault((f, tok.encode(" " + p.split()[-1])[-1]), []).append(p)
    return tuple(tuple(g) for _, g in sorted(groups.items()) if len(g) >= 8)


def _action(rng: random.Random, nouns: list[str]) -> str:
    return f"{rng.choice(ACTIONS)} the {rng.choice(nouns)}"


@dataclass(frozen=True)
class EventKnobs:
    """What a stage asks of its event tables (curriculum.Stage's event_* fields). The defaults are
    stage 67's; a knob left at 0 draws nothing, so the streams of the stages before it stay."""

    shared: float = 0.3  # prob. (each) that two clauses share a noun / a predicate
    tails: float = 0.0  # prob. a situation's condition ends in a place ("at the door")
    uniform: float = 0.0  # prob. every predicate takes one form ("is V-ing", "V-s", "is A")
    marked: int = 0  # clause marks (marks.py): 1 the letter each clause names, 2 its condition too
    near: float = 0.0  # prob. a one-form table's predicates all start with one letter
    same_end: float = (
        0.0  # prob. every predicate ends in the same BPE token (" burn"+"ing", " b"+"ark"+"ing")
    )


def event_table(
    rng: random.Random, shuffled: float, place_pool: float = 0.0, knobs: EventKnobs = EventKnobs()
):
    """The marks (knobs.marked, for train.py --aux-clause) draw nothing: the text is the unmarked one."""
    words = _Words(rng, place_pool)
    n = rng.randint(2, 4)
    default = rng.random() < 0.35
    nouns = [words.noun() for _ in range(n)]
    preds = _table_predicates(rng, knobs)
    nouns, ps, conds = _conditions(rng, words, nouns, preds, knobs.shared)
    k = n + (1 if default else 0)
    letters = _letters(rng, k, shuffled)
    opts = _options(rng, words, nouns, letters, n, default)  # [i]: clause i's (last: default)
    shown = sorted(opts, key=lambda o: o.letter) if rng.random() < 0.7 else list(opts)
    rule = _rule(rng, conds, opts, default, knobs.marked)
    events = _Events(words, nouns, ps, preds, conds, opts, default, knobs.tails)
    return Table("scene", rule, shown, events.situation)


def _table_predicates(rng: random.Random, knobs: EventKnobs) -> tuple[str, ...]:
    """The predicates a table's clauses draw from: all of the split's, or (knobs.uniform,
    knobs.near, knobs.same_end) those of one form, one first letter or one last token."""
    uniform, near = knobs.uniform, knobs.near
    preds = _predicates(W.current_split())
    if uniform and rng.random() < uniform:  # (drawn only when asked: stage 67's stream is unchanged)
        # one form for every clause and distractor ("is whistling", "is burning", "is barking"):
        # only the stems tell the clauses apart, as in the runtime test's kettle table
        ing, s_form, adj = _forms(W.current_split())
        preds = rng.choice((ing, ing, s_form, adj))
        if near and rng.random() < near:
            # stems that start alike ("is barking", "is burning", "is bowling"): the match must
            # read the whole word, not its first piece and its ending (soo took the bread clause
            # for "the dog is barking"; with "the cat is meowing" it read all twelve letterings)
            first = rng.choice(preds).removeprefix("is ")[0]
            close = tuple(p for p in preds if p.removeprefix("is ")[0] == first)
            preds = close if len(close) >= 8 else preds
    if knobs.same_end and rng.random() < knobs.same_end:  # (drawn only when asked)
        # every predicate ends in the same token: soo matches a clause by its predicate's last
        # token ("the dog is barking" takes the "bread is burning" clause, both "...ing"; with
        # "is eating" or "is sitting", other last tokens, it reads every lettering)
        groups = _same_end(W.current_split())
        preds = rng.choices(groups, weights=[len(g) for g in groups])[0]  # a predicate's group
    return preds


def _conditions(
    rng: random.Random, words: _Words, nouns: list[str], preds: tuple[str, ...], shared: float
) -> tuple[list[str], list[str], list[tuple[str, str]]]:
    """Each clause's (noun, predicate), two clauses sharing a noun or a predicate with prob.
    `shared` each -> (the nouns, the predicates, the conditions; distinct)."""
    nouns = list(nouns)
    n = len(nouns)
    ps = rng.sample(preds, n)
    if n > 2 and rng.random() < shared:
        nouns[1] = nouns[0]  # one thing in two clauses: only its predicate tells them apart
    if n > 2 and rng.random() < shared:
        ps[2] = ps[0]  # one predicate in two clauses: only the noun tells them apart
    conds = list(zip(nouns, ps))
    if len(set(conds)) < n:
        conds = list(zip([words.noun() for _ in range(n)], rng.sample(preds, n)))
    return nouns, ps, conds


def _options(
    rng: random.Random, words: _Words, nouns: list[str], letters: list[str], n: int, default: bool
) -> list[Option]:
    """The options, in clause order (last: the default's), under letters in a random order: an
    action on one of the rule's nouns (or two others), the default's perhaps an idle phrase."""
    k = len(letters)
    pool = list(dict.fromkeys(nouns)) + [words.noun() for _ in range(2)]
    texts: list[str] = []
    while len(texts) < k:
        t = rng.choice(IDLE) if default and len(texts) == n and rng.random() < 0.5 else _action(rng, pool)
        if t not in texts:
            texts.append(t)
    slots = list(range(k))
    rng.shuffle(slots)
    return [Option(letters[s], texts[i]) for i, s in enumerate(slots)]


def _rule(
    rng: random.Random, conds: list[tuple[str, str]], opts: list[Option], default: bool, marked: int
) -> str:
    """The rule: a clause for each condition (in a random order half the time), then the
    default's, joined as sentences or as one."""
    tpl = rng.choice(TEMPLATES)
    join = rng.choice(JOINS)
    order = list(range(len(conds)))
    if rng.random() < 0.5:
        rng.shuffle(order)

    def cond(i: int) -> str:
        c = f"{conds[i][0]} {conds[i][1]}"
        return M.clause(c, opts[i].letter) if marked > 1 else c

    def named(letter: str) -> str:
        return M.clause(letter, letter) if marked else letter

    parts = [tpl.replace("{N} {P}", cond(i)).replace("{L}", named(opts[i].letter)) for i in order]
    if default:
        parts.append(rng.choice(DEFAULTS).replace("{L}", named(opts[-1].letter)))
    if join == ". ":
        return ". ".join(_cap(p) for p in parts) + "."
    return _cap(join.join(parts[:1] + [p[:1].lower() + p[1:] for p in parts[1:]])) + "."


@dataclass(frozen=True)
class _Events:
    """An event table's situations: one condition (or none, for the default) among other events."""

    words: _Words
    nouns: list[str]
    ps: list[str]  # the clauses' predicates
    preds: tuple[str, ...]  # every predicate the table drew from
    conds: list[tuple[str, str]]
    opts: list[Option]  # in clause order (last: the default's)
    default: bool
    tails: float

    def other_event(self, r: random.Random) -> str:
        """A noun and a predicate that are no clause's condition (some of them the rule's)."""
        taken = set(self.conds)
        for _ in range(50):
            u = r.random()
            noun = r.choice(self.nouns) if u < 0.5 else self.words.noun()
            pred = r.choice(self.ps) if 0.3 < u < 0.8 else r.choice(self.preds)
            if (noun, pred) not in taken:
                return f"the {noun} {pred}"
        return _place(r, self.words)

    def situation(self, r: random.Random) -> tuple[str, str]:
        conds, opts, tails = self.conds, self.opts, self.tails
        if self.default and r.random() < 1.0 / len(opts):
            head, letter = None, opts[-1].letter
        else:
            i = r.randrange(len(conds))
            head, letter = f"the {conds[i][0]} {conds[i][1]}", opts[i].letter
            if r.random() < 0.4:
                head += " " + r.choice(ADVERBS)
            if tails and r.random() < tails:  # "the dog is barking at the door" (drawn only when asked)
                head += f" {r.choice(PREPS)} {self.words.noun()}"
        phrases = [self.other_event(r) for _ in range(r.randint(0 if head else 1, 2))]
        if head is None and r.random() < 0.3:
            phrases = [r.choice(QUIET)]
        if head:
            phrases.insert(r.randrange(len(phrases) + 1) if r.random() < 0.4 else 0, head)
        lead = r.choice(LEADS)
        if tails and r.random() < tails / 3:  # a one-word lead: "Smoke: the bread is burning."
            lead = _cap(self.words.noun()) + ": "
        s = lead + r.choice((", ", " and ", "; ")).join(phrases)
        return _cap(s) + ("." if r.random() < 0.6 else ""), letter
