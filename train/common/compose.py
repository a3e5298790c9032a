"""Rule-reading examples composed from the hand-written bank (train/common/bank/*.jsonl).

A rule is an ordered list of clauses (condition -> option) plus, usually, a default option.
A condition is a literal or two literals joined by "and" / "or"; a literal is a situation of
one aspect of a domain (possibly negated) or a number compared with a threshold. A world gives
every aspect one value (one of its situations, or neutral) and every quantity a number; the
state sentence describes the world's relevant parts (plus, sometimes, an irrelevant aspect),
and the answer is the option of the one clause the world satisfies, or the default.

Surface forms follow what people write (tests/data/exams/README.md lists the tags): if / when /
means / colon / arrow / bullets / table, letters or option texts or both in brackets, the
default first, in the middle or last, and / or / not / unless, numeric thresholds with strict
and inclusive comparisons, letters out of order, distractor facts. Nothing here reads the exam
sets; `heldout.py` rejects any text that overlaps them.
"""

from __future__ import annotations

import dataclasses
import glob
import json
import os
import random

BANK_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bank")
LETTERS = "ABCDEF"


def load_bank(pattern: str = os.path.join(BANK_DIR, "*.jsonl")) -> list[dict]:
    domains = []
    for path in sorted(glob.glob(pattern)):
        with open(path, encoding="utf-8") as f:
            domains.extend(json.loads(line) for line in f if line.strip())
    if not domains:
        raise SystemExit(f"compose: no bank domains at {pattern}")
    return domains


@dataclasses.dataclass
class Item:
    rule: str
    options: list[tuple[str, str]]  # (letter, text) in the order the prompt lists them
    state: str
    answer: str
    forms: list[str]
    domain: str
    # Dense labels for the reader (train/reader/): the rule's literals with their spans, the
    # option each chooses, and whether each holds in this item's world. Not part of to_json.
    reading: dict | None = None

    def to_json(self) -> dict:
        return {
            "domain": self.domain,
            "forms": self.forms,
            "rule": self.rule,
            "options": [list(o) for o in self.options],
            "state": self.state,
            "answer": self.answer,
        }


# ---- literals ---------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Cat:
    aspect: int
    sit: int
    neg: bool = False


@dataclasses.dataclass(frozen=True)
class Num:
    q: int
    op: str  # ">", ">=", "<", "<=", "in" (inclusive range)
    t: float
    t2: float = 0.0


def holds(lit, world) -> bool:
    if isinstance(lit, Cat):
        return (world["aspects"].get(lit.aspect) == lit.sit) != lit.neg
    v = world["nums"][lit.q]
    return {
        ">": v > lit.t,
        ">=": v >= lit.t,
        "<": v < lit.t,
        "<=": v <= lit.t,
        "in": lit.t <= v <= lit.t2,
    }[lit.op]


def fmt_num(x: float, is_int: bool) -> str:
    if is_int:
        return str(int(round(x)))
    return f"{x:.1f}".rstrip("0").rstrip(".")


_OP_WORDS = {
    ">": ["above {t}", "over {t}", "more than {t}", "higher than {t}", "greater than {t}"],
    ">=": ["at least {t}", "{t} or more", "{t} or above", "no less than {t}"],
    "<": ["below {t}", "under {t}", "less than {t}", "lower than {t}"],
    "<=": ["at most {t}", "{t} or less", "no more than {t}", "{t} or below"],
    "in": ["between {t} and {t2}", "from {t} to {t2}"],
}
_OP_SYMBOLS = {">": "> {t}", ">=": ">= {t}", "<": "< {t}", "<=": "<= {t}", "in": "{t}-{t2}"}


def with_unit(t: str, unit: str) -> str:
    if not unit:
        return t
    if unit == "%":
        return t + "%"
    return f"{t} {unit}"


def num_phrase(rng, q: dict, lit: Num, symbolic: bool = False) -> str:
    t = fmt_num(lit.t, integral(q))
    t2 = fmt_num(lit.t2, integral(q))
    if symbolic:
        return _OP_SYMBOLS[lit.op].format(t=with_unit(t, q["unit"]), t2=with_unit(t2, q["unit"]))
    pat = rng.choice(_OP_WORDS[lit.op])
    if lit.op == "in":
        return pat.format(t=t, t2=with_unit(t2, q["unit"]))
    return pat.format(t=with_unit(t, q["unit"]))


def lit_clause(rng, dom, lit, forms: set) -> str:
    """A clause that fits after "if" / "when"."""
    if isinstance(lit, Cat):
        s = dom["aspects"][lit.aspect]["situations"][lit.sit]
        if lit.neg:
            forms.add("not")
            return s["not_clause"]
        return s["clause"]
    q = dom["numeric"][lit.q]
    forms.add("number-threshold")
    verb = rng.choice(["is", "is", "reads", "gets to"]) if lit.op in (">=",) else "is"
    return f"{q['name']} {verb} {num_phrase(rng, q, lit)}"


def lit_label(rng, dom, lit, forms: set, symbolic: bool = False) -> str:
    """A short noun phrase for colon / arrow / bullet / table forms."""
    if isinstance(lit, Cat):
        s = dom["aspects"][lit.aspect]["situations"][lit.sit]
        if lit.neg:
            forms.add("not")
            return rng.choice(["no " + s["label"], "not " + s["label"], s["not_clause"]])
        return rng.choice([s["label"], s["label"], s["clause"]])
    q = dom["numeric"][lit.q]
    forms.add("number-threshold")
    name = q["name"][4:] if q["name"].startswith("the ") else q["name"]
    return f"{name} {num_phrase(rng, q, lit, symbolic)}"


# ---- option references -------------------------------------------------------------------

_BY_LETTER = [
    "choose {L}",
    "pick {L}",
    "answer {L}",
    "the answer is {L}",
    "go with {L}",
    "select {L}",
    "option {L}",
    "take option {L}",
    "{L}",
]


def ref(rng, style: str, letter: str, text: str) -> str:
    if style == "letter":
        return rng.choice(_BY_LETTER).format(L=letter)
    if style == "paren_lt":
        return f"{letter} ({text})"
    if style == "paren_tl":
        return f"{text} ({letter})"
    return text  # named by text


def cap(s: str) -> str:
    return s[:1].upper() + s[1:]


# ---- rules -------------------------------------------------------------------------------


@dataclasses.dataclass
class Rule:
    clauses: list[tuple[list, str, str]]  # (literals, "and"/"or"/"", option index)
    default: int | None  # option index
    unless: bool = False


def integral(q: dict) -> bool:
    """Whole numbers for a whole-number quantity ("4.3 players" reads as nonsense; a narrow
    range just has fewer thresholds), tenths otherwise."""
    return bool(q["int"]) and q["hi"] - q["lo"] >= 4


def step_of(q: dict) -> float:
    return 1 if integral(q) else 0.1


def pick_values(rng, q: dict, n: int) -> list[float]:
    span = q["hi"] - q["lo"]
    cuts = sorted(rng.sample(range(2, 19), n))
    vals = [q["lo"] + span * c / 20 for c in cuts]
    vals = [round(v) if integral(q) else round(v, 1) for v in vals]
    return vals if len(set(vals)) == n else []


def make_numeric_rule(rng, dom, n_opts: int) -> tuple[Rule, list] | None:
    qi = rng.randrange(len(dom["numeric"]))
    q = dom["numeric"][qi]
    if n_opts == 2 or rng.random() < 0.5:
        ts = pick_values(rng, q, 1)
        if not ts:
            return None
        return Rule([([Num(qi, rng.choice([">", ">=", "<", "<="]), ts[0])], "", 0)], default=1), []
    ts = pick_values(rng, q, 2)
    if not ts:
        return None
    t1, t2 = ts
    low_op, high_op = rng.choice(["<", "<="]), rng.choice([">", ">="])
    low, high = Num(qi, low_op, t1), Num(qi, high_op, t2)
    if rng.random() < 0.5:  # the middle band named as a range
        s = step_of(q)
        a = t1 if low_op == "<" else round(t1 + s, 1)
        b = t2 if high_op == ">" else round(t2 - s, 1)
        if a > b:
            return None
        return Rule([([low], "", 0), ([Num(qi, "in", a, b)], "", 1), ([high], "", 2)], None), []
    return Rule([([low], "", 0), ([high], "", 2)], default=1), []


def make_cat_rule(rng, dom, n_opts: int) -> tuple[Rule, list] | None:
    aspects = dom["aspects"]
    ai = rng.randrange(len(aspects))
    sits = list(range(len(aspects[ai]["situations"])))
    kind = rng.random()
    if kind < 0.12 and len(aspects) >= 2:  # and / or across two aspects
        aj = rng.choice([a for a in range(len(aspects)) if a != ai])
        l1 = Cat(ai, rng.choice(sits), rng.random() < 0.15)
        l2 = Cat(aj, rng.randrange(len(aspects[aj]["situations"])), rng.random() < 0.25)
        return Rule([([l1, l2], rng.choice(["and", "or"]), 0)], default=1), [ai, aj]
    if kind < 0.2 and dom["numeric"]:  # a situation and a number
        qi = rng.randrange(len(dom["numeric"]))
        ts = pick_values(rng, dom["numeric"][qi], 1)
        if not ts:
            return None
        l1 = Cat(ai, rng.choice(sits))
        l2 = Num(qi, rng.choice([">", "<", ">=", "<="]), ts[0])
        return Rule([([l1, l2], rng.choice(["and", "or"]), 0)], default=1), [ai]
    if kind < 0.32:  # a negated condition, or "unless"
        s = rng.choice(sits)
        if rng.random() < 0.5:
            return Rule([([Cat(ai, s, True)], "", 0)], default=1), [ai]
        return Rule([([Cat(ai, s)], "", 1)], default=0, unless=True), [ai]
    # one option per situation (some or all of them), maybe two situations to one option
    k = rng.randint(1, min(len(sits), n_opts - 1 if n_opts > 1 else 1))
    chosen = rng.sample(sits, k)
    clauses = [([Cat(ai, s)], "", i) for i, s in enumerate(chosen)]
    if len(chosen) >= 2 and rng.random() < 0.25:  # multi-condition: the last two share one option
        a, b = clauses[-2], clauses[-1]
        if rng.random() < 0.5:
            clauses = clauses[:-2] + [([a[0][0], b[0][0]], "or", a[2])]
        else:
            clauses = clauses[:-1] + [(b[0], "", a[2])]
    n_used = len({c[2] for c in clauses})
    # A default most of the time (always for a single clause, else every answer is the same);
    # without one, worlds that no clause names are skipped.
    default = n_used if (n_used == 1 or rng.random() < 0.8) else None
    return Rule(clauses, default), [ai]


# ---- worlds and states --------------------------------------------------------------------


def answer_of(rule: Rule, world) -> int | None:
    hits = set()
    for lits, join, opt in rule.clauses:
        ok = [holds(lit, world) for lit in lits]
        if all(ok) if join != "or" else any(ok):
            hits.add(opt)
    if len(hits) > 1:
        return None  # ambiguous world: the rule would need an order of precedence
    if hits:
        return hits.pop()
    return rule.default if rule.default is not None else -1


def sample_world(rng, dom, rule: Rule, aspects_used: list, target: int):
    """A world whose answer is option `target`, or None after a few tries."""
    lits = [lit for c in rule.clauses for lit in c[0]]
    nums_used = sorted({lit.q for lit in lits if isinstance(lit, Num)})
    for _ in range(40):
        world = {"aspects": {}, "nums": {}}
        for ai in aspects_used:
            n = len(dom["aspects"][ai]["situations"])
            favoured = [lit.sit for lit in lits if isinstance(lit, Cat) and lit.aspect == ai]
            r = rng.random()
            if favoured and r < 0.55:
                world["aspects"][ai] = rng.choice(favoured)
            elif r < 0.8:
                world["aspects"][ai] = rng.randrange(n)
            else:
                world["aspects"][ai] = None  # neutral
        for qi in range(len(dom["numeric"])):
            q = dom["numeric"][qi]
            thresholds = [
                x for lit in lits if isinstance(lit, Num) and lit.q == qi for x in (lit.t, lit.t2) if x
            ]
            step = step_of(q)
            if thresholds and rng.random() < 0.45:  # below, on or just above a boundary
                v = rng.choice(thresholds) + rng.choice([-step, 0, 0, step])
            else:
                v = rng.uniform(q["lo"], q["hi"])
            v = round(v) if step == 1 else round(v, 1)
            world["nums"][qi] = min(max(v, q["lo"]), q["hi"])
        a = answer_of(rule, world)
        if a == target:
            return world, nums_used
    return None


def describe(rng, dom, world, nums_used, aspects_used, forms: set, values: dict | None = None) -> str:
    """The state sentence; `values`, when given, maps each quantity stated to the character
    span of its number in the sentence."""
    parts = []
    for ai in aspects_used:
        asp = dom["aspects"][ai]
        s = world["aspects"][ai]
        parts.append(rng.choice(asp["neutral"] if s is None else asp["situations"][s]["states"]))
    for qi in nums_used:
        q = dom["numeric"][qi]
        tmpl = rng.choice([q["state"], q["state2"]])
        parts.append(tmpl.replace("{v}", fmt_num(world["nums"][qi], integral(q))))
    others = [a for a in range(len(dom["aspects"])) if a not in aspects_used]
    if others and rng.random() < 0.3:  # an irrelevant fact about another aspect
        asp = dom["aspects"][rng.choice(others)]
        pool = asp["neutral"] + [st for s in asp["situations"] for st in s["states"]]
        parts.insert(rng.randrange(len(parts) + 1), rng.choice(pool))
        forms.add("distractor")
    if len(parts) > 1 and rng.random() < 0.3:
        rng.shuffle(parts)
    state = " ".join(parts)
    if values is not None:
        for qi in nums_used:
            v = fmt_num(world["nums"][qi], integral(dom["numeric"][qi]))
            q = dom["numeric"][qi]
            for tmpl in (q["state"], q["state2"]):
                part = tmpl.replace("{v}", v)
                at = state.find(part)
                if at >= 0:
                    values[qi] = (at + tmpl.index("{v}"), at + tmpl.index("{v}") + len(v))
                    break
    return state


# ---- surface ----------------------------------------------------------------------------


def pronoun_for(subject: str) -> str:
    last = subject.split()[-1]
    return "they" if last.endswith("s") and not last.endswith("ss") else "it"


def lit_text(rng, dom, lit, forms: set, style: str, memo: dict | None) -> dict:
    """One literal as written, and as the judge must read it (a pronoun resolved): a clause
    whose aspect was the previous clause's may say "it" / "they" for the aspect's subject."""
    if style != "clause":
        t = lit_label(rng, dom, lit, forms, symbolic=(style == "symbol"))
        return {"text": t, "resolved": t, "ante": None}
    t = lit_clause(rng, dom, lit, forms)
    out = {"text": t, "resolved": t, "ante": None}
    if memo is not None:
        subject = dom["aspects"][lit.aspect].get("subject") if isinstance(lit, Cat) else None
        if (
            subject
            and memo.get("aspect") == lit.aspect
            and t.startswith(subject + " ")
            and rng.random() < 0.6
        ):
            out = {"text": pronoun_for(subject) + t[len(subject) :], "resolved": t, "ante": subject}
            forms.add("pronoun")
        memo["aspect"] = lit.aspect if isinstance(lit, Cat) else None
    return out


def condition_text(
    rng, dom, lits, join, forms, style: str, trace: list | None = None, memo: dict | None = None
) -> str:
    made = [lit_text(rng, dom, x, forms, style, memo if len(lits) == 1 else None) for x in lits]
    if memo is not None and len(lits) > 1:
        memo["aspect"] = None
    texts = [m["text"] for m in made]
    if trace is not None:
        trace.append(made)
    if len(texts) == 1:
        return texts[0]
    forms.add(join)
    word = join if join == "or" else rng.choice(["and", "and", "and also"])
    if join == "or" and rng.random() < 0.3:
        return f"either {texts[0]} or {texts[1]}"
    return f" {word} ".join(texts)


_DEFAULT_LAST = [
    "Otherwise, {r}.",
    "Otherwise {r}.",
    "In any other case, {r}.",
    "If none of these apply, {r}.",
    "If nothing above applies, {r}.",
    "Anything else: {r}.",
    "In all other situations, {r}.",
    "Else {r}.",
]
_DEFAULT_FIRST = ["Normally, {r}.", "By default, {r}.", "Usually {r}.", "As a rule, {r}.", "Default: {r}."]
_DEFAULT_MIDDLE = ["Otherwise, {r}.", "In every other case, {r}.", "If not, {r}."]

# Wordings people use that the older draws lack (render(people=True), the reader's training):
# connectives between a condition and its option, phrases with the option after or before, the
# default, table headers. Written for this list, never taken from an exam set.
_PEOPLE_IF = [
    "{w} {c}: {r}.",
    "{w} {c}, then {r}.",
    "{R}, {lw} {c}.",
    "In case {c}, {r}.",
    "{R} as soon as {c}.",
    "{w} {c} -> {r}.",
    "{w} {c}, you should {r}.",
]
_PEOPLE_PHRASE = [
    "{C} goes to {r}.",
    "{C} gets {r}.",
    "{C} calls for {r}.",
    "{C}? {R}.",
    "For {c}, {r}.",
    "With {c}, {r}.",
    "{R} for {c}.",
    "{C} - {r}.",
    "{C} = {r}.",
]
_PEOPLE_DEFAULT = [
    "Everything else: {r}.",
    "Everything else gets {r}.",
    "For anything else, {r}.",
    "{R} for everything else.",
    "{R} in every other case.",
    "Any other case: {r}.",
    "Nothing of the above: {r}.",
]
_PEOPLE_HEADERS = [
    "{d} | what to do",
    "If | Then",
    "Case | Response",
    "What you see | What you do",
    "Sign | Action",
]


def render(
    rng, dom, rule: Rule, opt_letters, opt_texts, forms: set, trace: list | None = None, people: bool = False
) -> str:
    """The rule's text; `trace`, when given, receives each clause's literal texts in order.

    `people` adds the wordings of _PEOPLE_* (connectives, defaults, table headers and a layout of
    phrases such as "X goes to D") to the draws; without it the draws are exactly the old ones."""
    style = rng.choices(["letter", "paren_lt", "paren_tl", "text"], [3, 2, 2, 3])[0]
    if style in ("paren_lt", "paren_tl"):
        forms.add("parentheses")
    if style == "text":
        forms.add("named-by-text")
    r = lambda i: ref(rng, style, opt_letters[i], opt_texts[i])  # noqa: E731

    if rule.unless:
        return _render_unless(rng, dom, rule, forms, trace, r)
    layouts = ["if", "when", "means", "colon", "arrow", "bullets", "table"]
    weights = [5, 2, 1.5, 2, 1.5, 1.5, 1.5]
    if people:
        layouts, weights = layouts + ["phrase"], weights + [3]
    layout = rng.choices(layouts, weights)[0]
    forms.add(layout)
    lines = _clause_lines(rng, dom, rule, layout, style, opt_letters, forms, trace, people, r)
    if rule.default is not None:
        _add_default(rng, layout, lines, forms, people, rule.default, r)
    return _join_lines(rng, dom, layout, lines, people)


def _render_unless(rng, dom, rule: Rule, forms: set, trace: list | None, r) -> str:
    """A rule of one clause and a default, said with "unless"; `r` names an option by its index."""
    ((lits, _, opt),) = rule.clauses
    cond = lit_clause(rng, dom, lits[0], forms)
    if trace is not None:
        trace.append([{"text": cond, "resolved": cond, "ante": None}])
    forms.add("unless")
    d = rule.default
    return rng.choice(
        [
            f"{cap(r(d))} unless {cond}; then {r(opt)}.",
            f"{cap(r(d))}, unless {cond}, in which case {r(opt)}.",
            f"Unless {cond}, {r(d)}. If that is the case, {r(opt)}.",
            f"Unless {cond}, {r(d)}; otherwise {r(opt)}.",
            f"Always {r(d)} unless {cond} - then {r(opt)}.",
        ]
    )


def _clause_lines(
    rng,
    dom,
    rule: Rule,
    layout: str,
    style: str,
    opt_letters,
    forms: set,
    trace: list | None,
    people: bool,
    r,
) -> list[str]:
    """One line per clause of the rule, in `layout`; `r` names an option by its index."""
    lines = []
    memo: dict = {}  # the previous clause's aspect, for pronouns
    for lits, join, opt in rule.clauses:
        if layout in ("if", "when"):
            word = "If" if layout == "if" else rng.choice(["When", "Whenever"])
            cond = condition_text(rng, dom, lits, join, forms, "clause", trace, memo)
            pool = [f"{word} {cond}, {r(opt)}.", f"{cap(r(opt))} {word.lower()} {cond}."]
            if people:
                pool += [
                    t.format(w=word, lw=word.lower(), c=cond, r=r(opt), R=cap(r(opt))) for t in _PEOPLE_IF
                ]
            lines.append(rng.choice(pool))
        elif layout == "phrase":
            cond = condition_text(rng, dom, lits, join, forms, "label", trace)
            # a phrase names the option as a noun: "goes to C", not "goes to choose C"
            ro = rng.choice(["{L}", "option {L}"]).format(L=opt_letters[opt]) if style == "letter" else r(opt)
            lines.append(rng.choice(_PEOPLE_PHRASE).format(c=cond, C=cap(cond), r=ro, R=cap(ro)))
        elif layout == "means":
            cond = condition_text(rng, dom, lits, join, forms, "label", trace)
            lines.append(rng.choice([f"{cap(cond)} means {r(opt)}.", f"{cap(cond)} means you {r(opt)}."]))
        elif layout == "colon":
            cond = condition_text(
                rng, dom, lits, join, forms, rng.choice(["label", "label", "symbol"]), trace
            )
            lines.append(f"{cap(cond)}: {r(opt)}.")
        elif layout == "arrow":
            cond = condition_text(rng, dom, lits, join, forms, rng.choice(["label", "symbol"]), trace)
            lines.append(f"{cond} {rng.choice(['->', '->', '=>', '→'])} {r(opt)}")
        elif layout == "bullets":
            cond = condition_text(rng, dom, lits, join, forms, rng.choice(["label", "clause"]), trace)
            lines.append(f"{rng.choice(['-', '*', '•'])} {cap(cond)}: {r(opt)}")
        else:
            cond = condition_text(rng, dom, lits, join, forms, rng.choice(["label", "symbol"]), trace)
            lines.append(f"{cond} | {r(opt)}")
    return lines


def _add_default(rng, layout: str, lines: list[str], forms: set, people: bool, d: int, r) -> None:
    """Puts the default's line (option `d`) last, first or in the middle of `lines`."""
    where = rng.choices(["last", "first", "middle"], [6, 2, 1.5 if len(lines) >= 2 else 0])[0]
    forms.add("otherwise-" + where)
    if layout == "table":
        line = f"{rng.choice(['anything else', 'otherwise', 'all other cases', 'none of these'])} | {r(d)}"
    elif layout in ("bullets",):
        line = f"{rng.choice(['-', '*'])} {rng.choice(['Otherwise', 'Anything else', 'Everything else'])}: {r(d)}"
    elif layout == "arrow":
        line = f"{rng.choice(['otherwise', 'anything else', 'else'])} -> {r(d)}"
    else:
        pool = {"last": _DEFAULT_LAST, "first": _DEFAULT_FIRST, "middle": _DEFAULT_MIDDLE}[where]
        if people and where == "last":
            pool = pool + _PEOPLE_DEFAULT
        if where == "middle" and layout not in ("if", "when"):
            pool = ["Anything else: {r}.", "Other cases: {r}."]
        if where == "first" and layout in ("colon", "means"):
            pool = ["Default: {r}.", "Normally, {r}."]
        template = rng.choice(pool)  # drawn before the reference, as always
        ref_d = r(d)
        line = template.format(r=ref_d, R=cap(ref_d))
    if where == "last":
        lines.append(line)
    elif where == "first":
        lines.insert(0, line)
    else:
        lines.insert(rng.randrange(1, len(lines)), line)


def _join_lines(rng, dom, layout: str, lines: list[str], people: bool) -> str:
    """The rule's lines as one text: a table under a header, bullets under an intro, else
    joined by spaces, newlines (or, for arrows, semicolons and commas)."""
    if layout == "table":
        headers = ["situation | action", "when | do", "condition | choice", "case | answer", ""]
        if people:
            headers = headers + [h.format(d=cap(dom["domain"])) for h in _PEOPLE_HEADERS]
        header = rng.choice(headers)
        return "\n".join(([header] if header else []) + lines)
    if layout == "bullets":
        intro = rng.choice(["", "Rules:", "What to do:", f"At the {dom['domain']}:"])
        return "\n".join(([intro] if intro else []) + lines)
    sep = rng.choice([" ", " ", "\n"]) if layout != "arrow" else rng.choice(["\n", "; ", ", "])
    return sep.join(lines)


def compose_rule(rng, dom, trace: list | None = None, people: bool = False):
    """One rule of a domain and the sampler of its items, or None when this draw fails."""
    n_actions = len(dom["actions"])
    n_opts = rng.choices([2, 3, 4, 5, 6], [2, 4, 4, 2, 1])[0]
    n_opts = min(n_opts, n_actions)
    made = (
        make_numeric_rule(rng, dom, n_opts)
        if (dom["numeric"] and rng.random() < 0.3)
        else make_cat_rule(rng, dom, n_opts)
    )
    if not made:
        return None
    rule, aspects_used = made
    used = sorted({c[2] for c in rule.clauses} | ({rule.default} if rule.default is not None else set()))
    if used != list(range(len(used))):
        return None
    n_opts = max(n_opts, len(used))
    if n_opts > n_actions:
        return None
    texts = rng.sample(dom["actions"], n_opts)
    letters = list(LETTERS[:n_opts])
    if rng.random() < 0.75:
        rng.shuffle(letters)  # which letter names which option (answers spread over letters)
    listing = sorted(range(n_opts), key=lambda i: letters[i])  # the order the prompt lists them
    if rng.random() < 0.3:
        rng.shuffle(listing)
    forms: set = set()
    text = render(rng, dom, rule, letters, texts, forms, trace, people)
    if [letters[i] for i in listing] != sorted(letters):
        forms.add("letters-out-of-order")
    chosen = [c[2] for c in rule.clauses]
    if len(set(chosen)) < len(chosen) or any(c[1] == "or" for c in rule.clauses):
        forms.add("multi-condition")
    options = [(letters[i], texts[i]) for i in listing]
    return rule, aspects_used, used, letters, options, text, forms


def items_for_rule(rng, dom, n_states: int, dense: bool = False, people: bool = False):
    """Up to n_states items sharing one rule, answers spread over its options.

    With `dense`, each item carries its reading (Item.reading); the draws are the same."""
    trace: list | None = [] if dense else None
    made = compose_rule(rng, dom, trace, people)
    if not made:
        return []
    rule, aspects_used, used, letters, options, text, forms = made
    out = []
    targets = used[:]
    rng.shuffle(targets)
    seen = set()
    for target in (targets * 2)[:n_states]:
        got = sample_world(rng, dom, rule, aspects_used, target)
        if not got:
            continue
        world, nums_used = got
        f = set(forms)
        values: dict | None = {} if trace is not None else None
        state = describe(rng, dom, world, nums_used, aspects_used, f, values)
        if state in seen:
            continue
        seen.add(state)
        if rule.default is not None and target == rule.default:
            f.add("default")
        item = Item(text, options, state, letters[target], sorted(f), dom["domain"])
        if trace is not None:
            item.reading = reading_of(dom, rule, trace, letters, world, values)
        out.append(item)
    return out


def generate(domains: list[dict], n_rules: int, seed: int, states_per_rule: int = 3):
    """Rules with their items: a list of lists of Items (one inner list per rule)."""
    rng = random.Random(seed)
    groups = []
    while len(groups) < n_rules:
        dom = rng.choice(domains)
        items = items_for_rule(rng, dom, states_per_rule)
        if items:
            groups.append(items)
    return groups


def number_of(dom, lit, text: str, values: dict) -> dict | None:
    """A numeric literal's comparison: its operator, the spans of its threshold(s) in the
    literal's text and of the quantity's value in the state (None when not found)."""
    if not isinstance(lit, Num) or lit.q not in values:
        return None
    q = dom["numeric"][lit.q]
    t, t2 = fmt_num(lit.t, integral(q)), fmt_num(lit.t2, integral(q))
    if lit.op == "in":
        b = text.rfind(t2)
        a = text.rfind(t, 0, b)
        if a < 0 or b < 0:
            return None
        thresholds = [(a, a + len(t)), (b, b + len(t2))]
    else:
        a = text.rfind(t)
        if a < 0:
            return None
        thresholds = [(a, a + len(t))]
    return {"op": lit.op, "thresholds": thresholds, "value": values[lit.q]}


def reading_of(dom, rule: Rule, trace: list, letters: list, world, values: dict) -> dict:
    """What the rule says, as the reader must learn it: per clause its literal texts (as
    written in the rule; resolved, with the subject a pronoun stands for), their join, the option letter they choose and each literal's truth
    in `world`; the default's letter (None when the rule has none)."""
    clauses = []
    for (lits, join, opt), made in zip(rule.clauses, trace):
        clauses.append(
            {
                "texts": [m["text"] for m in made],
                "resolved": [m["resolved"] for m in made],
                "antes": [m["ante"] for m in made],
                "join": join if len(lits) > 1 else "",
                "letter": letters[opt],
                "truth": [holds(x, world) for x in lits],
                "numbers": [number_of(dom, x, m["text"], values) for x, m in zip(lits, made)],
            }
        )
    default = letters[rule.default] if rule.default is not None else None
    return {"clauses": clauses, "default": default}
