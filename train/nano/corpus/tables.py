"""Sampling of rule tables and of situations that select exactly one option.

A Table is what goes in the constant prefix (rule sentence(s) + lettered options); its
`situation(rng)` draws one situation sentence and the letter it selects. Three kinds:
  match      - conditions made of content words; the situation holds one condition among
               distractors (partial matches of other conditions never count);
  bucket     - "the X is high" style conditions a perceiver writes for bucketed numbers, and
               comparisons ("the X is higher than the Y");
  relational - same way / opposite way / toward / away from a named thing: the answer is
               the option whose text holds the situation's direction word (or its opposite).
Every choice goes through the caller's random.Random, so a seed fixes the corpus.
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass

from . import marks
from . import templates as T
from . import wordlists as W
from .curriculum import Stage
from .events import EventKnobs
from .scenes import scene_table
from .table import Option, Table

LETTERS = "ABCDEF"


def _template_words() -> set[str]:
    import re

    texts = (
        list(T.RULE_CLAUSES)
        + list(T.DEFAULT_CLAUSES)
        + list(T.SITUATION_LEADS)
        + list(T.MODIFIERS)
        + list(T.SAME_RULES)
        + list(T.OPPOSITE_RULES)
        + list(T.TOWARD_RULES)
        + list(T.AWAY_RULES)
        + list(T.MOVING_SITUATIONS)
        + list(T.PLACE_SITUATIONS)
        + list(T.SYSTEM_PROMPTS)
        + [w for p in T.DIRECTION_PAIRS for w in p]
        + [w for s in T.SCALES for w in s]
        + [w for c in T.COMPARATORS for w in c]
        + ["still", "wait", "stay", "nothing"]
        + list(T.FIXED_ACTIONS)
    )
    out = set()
    for t in texts:
        out.update(re.findall(r"[a-z]+", t.lower()))
    return out


BANNED = _template_words() | W.RESERVED


@functools.lru_cache(maxsize=None)
def _pools(split: str = "train") -> tuple[list[str], list[str]]:
    """(common, full) content words of one side of the seen / unseen split (wordlists.py)."""
    return (
        [w for w in W.common_words(split=split) if w not in BANNED],
        [w for w in W.split_words(split) if w not in BANNED],
    )


class Pool:
    """Draws distinct content words for one table."""

    def __init__(self, rng: random.Random, stage: Stage):
        self.rng, self.stage = rng, stage
        self.used: set[str] = set()
        self.common, self.full = _pools(W.current_split())

    def word(self) -> str:
        if self.stage.made_up and self.rng.random() < self.stage.made_up:
            return self._made_up()
        src = self.full if self.rng.random() < self.stage.pool else self.common
        for _ in range(100):
            w = self.rng.choice(src)
            if w not in self.used:
                return self._take(w)
        # a small pool (common words of the unseen split) can run dry
        left = [x for x in src if x not in self.used]
        if not left:
            raise ValueError(f"word pool exhausted: all {len(src)} words of this table's pool are used")
        return self._take(self.rng.choice(left))

    def _made_up(self) -> str:
        for _ in range(100):
            w = made_up_word(self.rng, self.full)
            if w not in self.used:
                return self._take(w)
        raise ValueError("made_up_word: no new word in 100 draws")

    def _take(self, w: str) -> str:
        self.used.add(w)
        # a synonym / inflection of a used word would make situations ambiguous
        self.used.update(W.inflections(w))
        self.used.update(W.wordnet_relations()[0].get(w, ()))
        return w


def made_up_word(rng: random.Random, words: list[str]) -> str:
    """A word no dictionary has: the front of one pool word and the back of another, 4-10
    letters, so it tokenizes into the pieces real words use but in a new combination (as an
    unseen word does). Never a dictionary word of either split, nor a template word."""
    known = _dictionary_set()
    for _ in range(1000):
        a, b = rng.choice(words), rng.choice(words)
        w = a[: rng.randint(2, max(2, len(a) - 1))] + b[rng.randint(1, max(1, len(b) - 2)) :]
        if 4 <= len(w) <= 10 and w not in known and w not in BANNED:
            return w
    raise ValueError("made_up_word: no word in 1000 draws")


@functools.lru_cache(maxsize=None)
def _dictionary_set() -> frozenset[str]:
    return frozenset(W.dictionary_words())


def vary_case(rng: random.Random, w: str, p: float) -> str:
    """Case variation so "Pole" and "pole" are learned to match (the tokenizer keeps case)."""
    r = rng.random()
    if r < p:
        return w.upper() if r < p * 0.15 else w[:1].upper() + w[1:]
    return w


def vary_word(rng: random.Random, w: str, stage: Stage) -> str:
    """The same word as a situation may write it: inflected or a WordNet synonym."""
    if rng.random() >= stage.variation:
        return w
    syn = [x for x in W.wordnet_relations()[0].get(w, ()) if W.in_split(x)]
    inf = _stem_variants(w) or W.inflections(w)
    if syn and rng.random() < 0.4:
        return rng.choice(syn)
    return rng.choice(inf) if inf else w


def _stem_variants(w: str) -> list[str]:
    """An already-inflected dictionary word varies by losing its suffix ("ferments" ->
    "ferment"), not by stacking another one ("fermentsing")."""
    for suf in ("ing", "ed", "es", "s"):
        if w.endswith(suf) and len(w) - len(suf) >= 3 and not w.endswith("ss"):
            return [w[: -len(suf)]]
    return []


def choose_letters(rng: random.Random, n: int, stage: Stage) -> list[str]:
    if rng.random() < stage.shuffled_letters:
        letters = sorted(rng.sample(LETTERS, n)) if rng.random() < 0.5 else list(LETTERS[:n])
        if rng.random() < 0.5:
            rng.shuffle(letters)
        return letters
    return list(LETTERS[:n])


def _join_situation(rng: random.Random, phrases: list[str], stage: Stage) -> str:
    rng.shuffle(phrases)
    if not stage.leads:
        return ", ".join(phrases)
    joiner = rng.choice(T.SITUATION_JOINERS)
    s = rng.choice(T.SITUATION_LEADS) + joiner.join(phrases)
    if stage.case > 0 and rng.random() < 0.5:  # sentence case only once case variation is on
        s = marks.capitalize(s)
    return s + ("." if rng.random() < 0.6 else "")


def _render_cond(rng: random.Random, words: list[str], stage: Stage) -> str:
    ws = [vary_case(rng, w, stage.case) for w in words]
    return ("the " if rng.random() < stage.article else "") + " ".join(ws)


def _clause(rng: random.Random, stage: Stage, opt: Option, conds_text: str) -> str:
    pool = [T.RULE_CLAUSES[i] for i in stage.template_set] or T.RULE_CLAUSES[: stage.templates]
    if (
        stage.letter_first > 0 and rng.random() < stage.letter_first
    ):  # no draw otherwise: old stages' streams stay
        pool = [t for t in pool if "{L}" in t and "{C}" in t and t.index("{L}") < t.index("{C}")] or pool
    tpl = rng.choice(pool)
    named = (lambda t: marks.clause(t, opt.letter)) if stage.clause_marks else str
    cond = named(conds_text) if stage.clause_conditions else conds_text
    c = tpl.replace("{C}", cond).replace("{L}", named(opt.letter)).replace("{T}", named(opt.text))
    if tpl.startswith(("{C}", "{T}")) and stage.case == 0:
        return c  # capitalising would change the condition word's tokens ("Filled" = "F"+"illed")
    return marks.capitalize(c) if rng.random() < 0.7 else c


def _join_clauses(joiner: str, clauses: list[str]) -> str:
    """Clauses stay separable: "; " replaces a final period, a space needs one."""
    if joiner == "; ":
        clauses = [c[:-1] if c.endswith(".") else c for c in clauses]
    elif joiner == " ":
        clauses = [c if c.endswith(".") else c + "." for c in clauses]
    return joiner.join(clauses)


def _option_text(rng: random.Random, pool: Pool) -> str:
    if pool.stage.fixed_options:
        return rng.choice(T.FIXED_ACTIONS)
    r = rng.random()
    if r < 0.4:
        return pool.word()
    if r < 0.7:
        return pool.word() + " " + rng.choice(rng.choice(T.DIRECTION_PAIRS))
    return pool.word() + " the " + pool.word()


def match_table(rng: random.Random, stage: Stage) -> Table:
    pool = Pool(rng, stage)
    n = rng.randint(*stage.options)
    letters = choose_letters(rng, n, stage)
    opts = [Option(L, _option_text(rng, pool)) for L in letters]
    default = None
    if n >= 2 and rng.random() < stage.default:
        default = rng.choice(opts)
    for o in opts:
        if o is default:
            continue
        for _ in range(rng.randint(1, stage.conds_per_option)):
            o.conds.append([pool.word() for _ in range(rng.randint(*stage.cond_words))])
    rule = _match_rule(rng, stage, opts, default)
    return Table("match", rule, opts, _Match(pool, stage, opts, default).situation)


def _match_rule(rng: random.Random, stage: Stage, opts: list[Option], default: Option | None) -> str:
    """A match table's rule: a clause for each option but the default (its conditions joined by
    "or"), the default's clause last."""
    clauses = []
    for o in opts:
        if o is default:
            continue
        texts = [_render_cond(rng, c, stage) for c in o.conds]
        joined = (
            texts[0] if len(texts) == 1 else ", ".join(texts[:-1]) + rng.choice((" or ", ", ")) + texts[-1]
        )
        clauses.append(_clause(rng, stage, o, joined))
    if rng.random() < stage.shuffle_clauses:
        rng.shuffle(clauses)
    if default is not None:
        named = (lambda t: marks.clause(t, default.letter)) if stage.clause_marks else str
        d = (
            rng.choice(T.DEFAULT_CLAUSES)
            .replace("{L}", named(default.letter))
            .replace("{T}", named(default.text))
        )
        clauses.append(d)
    return _join_clauses(rng.choice(T.CLAUSE_JOINERS if stage.templates > 1 else (" ",)), clauses)


@dataclass(frozen=True)
class _Match:
    """A match table's situations: the answer's condition (none for the default) among
    distractors, some of them parts of other options' conditions."""

    pool: Pool  # the table's: distractor words stay distinct from its words
    stage: Stage
    opts: list[Option]
    default: Option | None

    def mark(self, w: str, letter: str, level: int) -> str:
        """A situation word of a condition carries its option's letter (Stage.match_marks)."""
        return marks.clause(w, letter) if self.stage.match_marks >= level else w

    def situation(self, r: random.Random) -> tuple[str, str]:
        target = r.choice(self.opts)
        phrases = []
        if target is not self.default:
            phrases.append(self._condition(r, target))
        phrases += self._distractors(r, target)
        if not phrases:
            phrases.append(self.pool.word())
        return _join_situation(r, phrases, self.stage), target.letter

    def _condition(self, r: random.Random, target: Option) -> str:
        """One of the target's conditions, its words varied, perhaps reordered and modified."""
        stage = self.stage
        words = [vary_word(r, w, stage) for w in r.choice(target.conds)]
        if len(words) > 1 and r.random() < stage.reorder:
            r.shuffle(words)
        mod_at = -1
        if r.random() < stage.modifiers:
            mod_at = r.randint(0, len(words))
            words.insert(mod_at, r.choice(T.MODIFIERS))
        return " ".join(
            vary_case(r, w, stage.case)
            if i == mod_at
            else self.mark(vary_case(r, w, stage.case), target.letter, 1)
            for i, w in enumerate(words)
        )

    def _distractors(self, r: random.Random, target: Option) -> list[str]:
        """Distractor phrases: content words, or part of another option's condition (Stage.partial)."""
        stage, pool = self.stage, self.pool
        others = [(c, o.letter) for o in self.opts if o is not target for c in o.conds if len(c) > 1]
        said: dict[int, set[str]] = {}  # words of each other condition the situation already holds
        phrases = []
        for _ in range(r.randint(*stage.distractors)):
            if others and r.random() < stage.partial:
                c, letter = r.choice(others)
                words = r.sample(c, r.randint(1, len(c) - 1))
                if not stage.partial_whole:
                    # parts that together spell a whole condition make a second answer: this
                    # distractor becomes a plain word instead
                    seen = said.setdefault(id(c), set())
                    if seen | set(words) >= set(c):
                        phrases.append(pool.word())
                        continue
                    seen.update(words)
                part = [self.mark(w, letter, 2) for w in words]
                phrases.append(" ".join(part + ([pool.word()] if r.random() < 0.5 else [])))
                if stage.partial_repeat > 0 and r.random() < stage.partial_repeat:
                    phrases.append(" ".join(part))
            else:
                phrases.append(" ".join(pool.word() for _ in range(r.randint(1, 2 if stage.leads else 1))))
        return phrases


def bucket_table(rng: random.Random, stage: Stage) -> Table:
    pool = Pool(rng, stage)
    if rng.random() < 0.3:
        return _comparison_table(rng, stage, pool)
    scale = rng.choice(T.SCALES)
    nouns = [pool.word() for _ in range(rng.choice((1, 1, 2)))]
    pairs = [(a, b) for a in nouns for b in scale]
    n = max(2, min(rng.randint(*stage.options), len(pairs)))
    chosen = rng.sample(pairs, n)
    letters = choose_letters(rng, n, stage)
    opts = [Option(L, _option_text(rng, pool), [[a, "is", b]]) for L, (a, b) in zip(letters, chosen)]
    clauses = [_clause(rng, stage, o, "the " + o.conds[0][0] + " is " + o.conds[0][2]) for o in opts]
    if rng.random() < stage.shuffle_clauses:
        rng.shuffle(clauses)
    rule = _join_clauses(rng.choice(T.CLAUSE_JOINERS), clauses)
    conds = set(chosen)

    def situation(r: random.Random) -> tuple[str, str]:
        target = r.choice(opts)
        a, _, b = target.conds[0]
        phrases = [
            f"the {vary_case(r, a, stage.case)} is {b}"
            + (f" ({r.uniform(-9, 9):.2f})" if r.random() < 0.3 else "")
        ]
        for other in nouns:
            if other == a:
                continue
            free = [x for x in scale if (other, x) not in conds]
            if free:
                phrases.append(f"the {other} is {r.choice(free)}")
        for _ in range(r.randint(0, max(0, stage.distractors[1] - 1))):
            phrases.append(pool.word())
        return _join_situation(r, phrases, stage), target.letter

    return Table("bucket", rule, opts, situation)


def _comparison_table(rng: random.Random, stage: Stage, pool: Pool) -> Table:
    more, less = rng.choice(T.COMPARATORS)
    a, b = pool.word(), pool.word()
    letters = choose_letters(rng, 2, stage)
    opts = [
        Option(letters[0], _option_text(rng, pool), [[a, more, b]]),
        Option(letters[1], _option_text(rng, pool), [[a, less, b]]),
    ]
    clauses = [_clause(rng, stage, o, f"the {a} is {o.conds[0][1]} the {b}") for o in opts]
    if rng.random() < stage.shuffle_clauses:
        rng.shuffle(clauses)
    rule = _join_clauses(rng.choice(T.CLAUSE_JOINERS), clauses)

    def situation(r: random.Random) -> tuple[str, str]:
        target = r.choice(opts)
        phrases = [f"the {vary_case(r, a, stage.case)} is {target.conds[0][1]} the {b}"]
        phrases += [pool.word() for _ in range(r.randint(0, 2))]
        return _join_situation(r, phrases, stage), target.letter

    return Table("bucket", rule, opts, situation)


def relational_table(rng: random.Random, stage: Stage) -> Table:
    pool = Pool(rng, stage)
    mode = rng.choice(("same", "opposite", "toward", "away"))
    n_pairs = 2 if rng.random() < stage.rel_pairs2 and stage.options[1] >= 4 else 1
    pairs = rng.sample(T.DIRECTION_PAIRS, n_pairs)
    verb, noun = pool.word(), pool.word()
    dirs = [d for p in pairs for d in p]
    neutral = rng.random() < 0.3 and len(dirs) + 1 <= stage.options[1]
    n = len(dirs) + (1 if neutral else 0)
    letters = choose_letters(rng, n, stage)
    texts = [f"{verb} {d}" for d in dirs] + (["wait"] if neutral else [])
    order = list(range(n))
    rng.shuffle(order)
    opts = [Option(letters[i], texts[k]) for i, k in enumerate(order)]
    by_dir = {o.text.split()[-1]: o for o in opts}
    pool_t = {
        "same": T.SAME_RULES,
        "opposite": T.OPPOSITE_RULES,
        "toward": T.TOWARD_RULES,
        "away": T.AWAY_RULES,
    }[mode]
    rule = rng.choice(pool_t).replace("{V}", verb).replace("{N}", noun)
    rule = marks.capitalize(rule)
    if neutral:
        w = by_dir["wait"]
        named = (lambda t: marks.clause(t, w.letter)) if stage.clause_marks else str
        still = named("is still") if stage.clause_conditions else "is still"
        rule += f" If the {noun} {still}, choose {named(w.letter)}."
    # "still D of the N" clauses aimed at two different options (any of them, "wait" included):
    # only the clause tells, so "still" is no shortcut to the "wait" option
    places = []
    if mode in ("same", "opposite") and stage.still_places and rng.random() < stage.still_places:
        ref, clauses = pool.word(), [rule]
        for d, target in zip(rng.sample(dirs, 2), rng.sample(opts, 2)):
            places.append((f"is still {d} of the {ref}", target.letter))
            clauses.append(_clause(rng, stage, target, f"the {noun} is still {d} of the {ref}"))
        rule = _join_clauses(" ", clauses)
    opposite = {a: b for p in T.DIRECTION_PAIRS for a, b in (p, p[::-1])}
    mark_n = marks.noun if stage.marks else str
    mark_d = marks.direction if stage.marks else str
    forms = T.MOVING_SITUATIONS if mode in ("same", "opposite") else T.PLACE_SITUATIONS

    def situation(r: random.Random) -> tuple[str, str]:
        phrases, d = [], ""
        clause = stage.clause_marks  # a still situation (no direction word d) is answered by a clause
        if places and r.random() < 0.4:
            cond, letter = r.choice(places)
            phrases.append(f"the {mark_n(vary_case(r, noun, stage.case))} {cond}")
        elif neutral and r.random() < 1.0 / n:
            phrases.append(f"the {mark_n(noun)} is still")
            letter = by_dir["wait"].letter
        else:
            d = r.choice(dirs)
            phrases.append(
                r.choice(forms)
                .replace("{N}", mark_n(vary_case(r, noun, stage.case)))
                .replace("{D}", mark_d(d))
            )
            want = d if mode in ("same", "toward") else opposite[d]
            letter = by_dir[want].letter
        lo, hi = stage.rel_distractors or (0, max(0, stage.distractors[1] - 2))
        # the drill's other things never share the subject's direction: each one is a test
        others = [x for x in dirs if x != d] if stage.rel_distractors and d else dirs
        for _ in range(r.randint(lo, hi)):
            other = pool.word()
            phrases.append(r.choice(forms).replace("{N}", other).replace("{D}", r.choice(others)))
        s = _join_situation(r, phrases, stage)
        return (marks.from_clause(s) if clause and not d else s), letter

    return Table("relational", rule, opts, situation)


def sample_table(rng: random.Random, stage: Stage) -> Table:
    if stage.scene and rng.random() < stage.scene:
        clause_marked = (2 if stage.clause_conditions else 1) if stage.clause_marks else 0
        knobs = EventKnobs(
            stage.event_shared,
            stage.event_tails,
            stage.event_uniform,
            clause_marked if stage.event_marks else 0,
            stage.event_near,
            stage.event_same_end,
        )
        return scene_table(
            rng,
            shuffled=stage.scene_shuffle,
            level=stage.scene_level,
            rephrase=stage.rephrase,
            place_pool=stage.place_pool,
            front=stage.front,
            reword_level=stage.reword_level,
            marked=stage.scene_marks,
            more_places=stage.more_places,
            hazard_first=stage.hazard_first,
            place_forms=stage.place_forms,
            default_text=stage.default_text,
            events=stage.events,
            event_knobs=knobs,
            clause_marked=clause_marked,
        )
    r = rng.random()
    if r < stage.relational:
        return relational_table(rng, stage)
    if r < stage.relational + stage.bucket:
        return bucket_table(rng, stage)
    return match_table(rng, stage)
