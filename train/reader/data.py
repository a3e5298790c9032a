"""Training examples for meadow-reader, in the two parts it learns.

Reading (once per rule): for each option, which words of the rule are the conditions that
choose it, how they join, and whether it is the default. One example per (rule, option):
the option ("C: sound the horn") as the first segment, the rule as the second, a tag per
rule token (TAGS) and a default flag.

Judging (once per decision): does this condition, as the rule writes it, hold in this
situation? One example per (literal, state), labelled by the world the composer sampled.

Both come from train/common/compose.py's dense labels (Item.reading); items overlapping a
held-out text (train/common/heldout/composed.py) are dropped before they get here.
"""

from __future__ import annotations

import dataclasses
import re

from train.common.compose import Item

# Tag of each rule token for one option: outside, the first / next token of a literal that
# chooses this option, a word joining two literals of one clause by "and" / "or", a pronoun
# that begins such a literal, and the words it stands for (the antecedent, anywhere before).
TAGS = ["O", "B", "I", "AND", "OR", "PRON", "ANTE"]
TAG = {t: i for i, t in enumerate(TAGS)}

# Judging a numeric literal is reading, then arithmetic: the literal's comparison (OPS; "none"
# for a literal that is not one), its threshold(s) (T1, T2: tokens of the condition) and the
# quantity's value (V: tokens of the situation) are tagged; the runtime parses and compares.
OPS = ["none", ">", ">=", "<", "<=", "in"]
JUDGE_TAGS = ["O", "T1", "T2", "V"]


def option_query(letter: str, text: str) -> str:
    """The first segment of a reading example; the runtime builds the same string."""
    return f"{letter}: {text}"


@dataclasses.dataclass
class Span:
    start: int  # characters of the rule
    end: int
    tag: str  # "LIT", "AND", "OR", "PRON", "ANTE"


@dataclasses.dataclass
class ReadingExample:
    query: str
    rule: str
    spans: list[Span]  # of this option, in rule order
    is_default: bool


@dataclasses.dataclass
class JudgeExample:
    condition: str
    state: str
    holds: bool
    op: str = "none"
    thresholds: list = dataclasses.field(default_factory=list)  # spans in `condition`
    value: tuple | None = None  # span in `state`
    numbers_known: bool = True  # False: hand-labelled truth only (no op / threshold / value labels)


def locate(rule: str, clauses: list[dict]) -> list[list[tuple[int, int]]] | None:
    """Character spans of every clause's literals, searched in order (clauses are rendered in
    order; the default line holds no literal). None when a literal is not found."""
    low = rule.lower()
    at = 0
    out = []
    for c in clauses:
        spans = []
        for text in c["texts"]:
            i = low.find(text.lower(), at)
            if i < 0:
                return None
            spans.append((i, i + len(text)))
            at = i + len(text)
        out.append(spans)
    return out


def join_span(rule: str, a: tuple[int, int], b: tuple[int, int], join: str) -> Span | None:
    """The joining word between two literals of one clause ("and", "and also", "or")."""
    gap = rule[a[1] : b[0]]
    word = "or" if join == "or" else "and"
    k = gap.lower().find(word)
    if k < 0:
        return None
    return Span(a[1] + k, a[1] + k + len(word), join.upper())


def clause_spans(rule: str, clause: dict, found: list[tuple[int, int]]) -> list[Span] | None:
    """One clause's spans: its literals (a pronoun split off with its antecedent) and the words
    joining them. None when a join or an antecedent is not where the composer put it."""
    out: list[Span] = []
    for k, (s, e) in enumerate(found):
        if k:
            j = join_span(rule, found[k - 1], (s, e), clause["join"])
            if j is None:
                return None
            out.append(j)
        ante = clause["antes"][k]
        if ante:
            hits = list(re.finditer(r"\b" + re.escape(ante.lower()) + r"\b", rule.lower()[:s]))
            if not hits:
                return None
            a = hits[-1].start()
            word = clause["texts"][k].split(" ", 1)[0]
            out += [Span(a, a + len(ante), "ANTE"), Span(s, s + len(word), "PRON")]
            s += len(word) + 1
        out.append(Span(s, e, "LIT"))
    return out


def reading_examples(item: Item) -> list[ReadingExample]:
    r = item.reading
    spans = locate(item.rule, r["clauses"])
    if spans is None:
        return []
    out = []
    for letter, text in item.options:
        mine: list[Span] = []
        for c, sp in zip(r["clauses"], spans):
            if c["letter"] != letter:
                continue
            got = clause_spans(item.rule, c, sp)
            if got is None:
                return []
            mine += got
        antes = [m for m in mine if m.tag == "ANTE"]
        if any(a.start < m.end and m.start < a.end for a in antes for m in mine if m.tag == "LIT"):
            return []  # the antecedent inside this option's own condition: no clean tags
        out.append(ReadingExample(option_query(letter, text), item.rule, mine, letter == r["default"]))
    return out


def judge_examples(item: Item) -> list[JudgeExample]:
    out = []
    for c in item.reading["clauses"]:
        for text, t, num in zip(c["resolved"], c["truth"], c["numbers"]):
            if num is None:
                out.append(JudgeExample(text, item.state, bool(t)))
            else:
                out.append(
                    JudgeExample(text, item.state, bool(t), num["op"], num["thresholds"], num["value"])
                )
    return out


def judge_token_tags(offsets, seq_ids, ex: JudgeExample) -> list[int]:
    tags = []
    for (s, e), sid in zip(offsets, seq_ids):
        if sid is None or e <= s:
            tags.append(-100)
            continue
        tag = "O"
        if sid == 0:
            for k, (a, b) in enumerate(ex.thresholds[:2]):
                if s < b and e > a:
                    tag = "T1" if k == 0 else "T2"
        elif ex.value is not None and s < ex.value[1] and e > ex.value[0]:
            tag = "V"
        tags.append(JUDGE_TAGS.index(tag))
    return tags


def token_tags(offsets: list[tuple[int, int]], in_rule: list[bool], spans: list[Span]) -> list[int]:
    """One tag per token (-100 where no loss: special tokens and the query segment)."""
    tags = []
    prev_lit = None
    for (s, e), mine in zip(offsets, in_rule):
        if not mine or e <= s:
            tags.append(-100)
            prev_lit = None
            continue
        # a token inside this option's own literal is never the antecedent
        hits = [sp for sp in spans if s < sp.end and e > sp.start]
        hit = next((sp for sp in hits if sp.tag != "ANTE"), hits[0] if hits else None)
        tag, prev_lit = tag_of(hit, prev_lit)
        tags.append(TAG[tag])
    return tags


def tag_of(hit: Span | None, prev: Span | None) -> tuple[str, Span | None]:
    """A token's tag from the span it falls in, and the span that the next token continues
    (a literal goes on after its own tokens, or after the pronoun that begins it)."""
    if hit is None:
        return "O", None
    if hit.tag == "LIT":
        cont = prev is hit or (prev is not None and prev.tag == "PRON")
        return ("I" if cont else "B"), hit
    if hit.tag == "PRON":
        return "PRON", hit
    return hit.tag, None


# ---- one pass per rule ---------------------------------------------------------------------
#
# The rule as the first segment, the lettered options as the second ("A: stop the music; C:
# let the song carry on"). Tags mark every literal of every option (RULE_TAGS, and a separate
# antecedent flag, since the words a pronoun stands for usually sit inside an earlier literal);
# a link head points each literal at the option it chooses, a default head flags the default.

RULE_TAGS = ["O", "B", "I", "AND", "OR", "PRON"]
RULE_TAG = {t: i for i, t in enumerate(RULE_TAGS)}


def option_listing(options: list[tuple[str, str]]) -> tuple[str, list[tuple[int, int]]]:
    """The second segment of a reading pass and each option's character span in it."""
    pieces, spans, at = [], [], 0
    for letter, text in options:
        piece = option_query(letter, text)
        spans.append((at, at + len(piece)))
        pieces.append(piece)
        at += len(piece) + 2
    return "; ".join(pieces), spans


@dataclasses.dataclass
class RuleExample:
    rule: str
    listing: str
    option_spans: list[tuple[int, int]]  # in `listing`, in the options' order
    spans: list[Span]  # literals (LIT), joins (AND/OR), pronouns (PRON), antecedents (ANTE)
    literal_option: list[int]  # per LIT span, in order: the index of the option it chooses
    default: int | None
    literal_clause: list[int] = dataclasses.field(default_factory=list)  # per LIT span


def rule_example(item: Item) -> RuleExample | None:
    r = item.reading
    found = locate(item.rule, r["clauses"])
    if found is None:
        return None
    letters = [letter for letter, _ in item.options]
    spans: list[Span] = []
    link: list[int] = []
    clause: list[int] = []
    for k, (c, sp) in enumerate(zip(r["clauses"], found)):
        got = clause_spans(item.rule, c, sp)
        if got is None:
            return None
        spans += got
        link += [letters.index(c["letter"])] * len(sp)
        clause += [k] * len(sp)
    listing, option_spans = option_listing(item.options)
    default = letters.index(r["default"]) if r["default"] is not None else None
    return RuleExample(item.rule, listing, option_spans, spans, link, default, clause)


def clause_windows(clauses: list[list[int]], rule_tokens: list[int]) -> list[tuple[list[int], list[int]]]:
    """Per clause (its literals' token indices), the rule tokens on either side of it up to the
    neighbouring clauses: where the words naming its option are ("→ D (put down a beer trap)",
    "Whistle once (A) for …"). The link head reads them with the clause's own tokens."""
    order = sorted(range(len(clauses)), key=lambda k: min(clauses[k]))
    out: list[tuple[list[int], list[int]]] = [([], []) for _ in clauses]
    for i, k in enumerate(order):
        lo = max(clauses[order[i - 1]]) if i > 0 else -1
        hi = min(clauses[order[i + 1]]) if i + 1 < len(order) else 1 << 30
        first, last = min(clauses[k]), max(clauses[k])
        out[k] = ([t for t in rule_tokens if lo < t < first], [t for t in rule_tokens if last < t < hi])
    return out


def rule_token_labels(offsets, seq_ids, ex: RuleExample):
    """Per token of a reading pass: its tag (-100 outside the rule), its antecedent flag, and,
    per literal / per option, which tokens belong to it (index lists)."""
    tags, ante = [], []
    lit_tokens: list[list[int]] = [[] for sp in ex.spans if sp.tag == "LIT"]
    opt_tokens: list[list[int]] = [[] for _ in ex.option_spans]
    lit_ids = {id(sp): k for k, sp in enumerate(sp for sp in ex.spans if sp.tag == "LIT")}
    prev = None
    for t, ((s, e), sid) in enumerate(zip(offsets, seq_ids)):
        if sid == 1 and e > s:
            for k, (a, b) in enumerate(ex.option_spans):
                if s < b and e > a:
                    opt_tokens[k].append(t)
        if sid != 0 or e <= s:
            tags.append(-100)
            ante.append(-100.0)
            prev = None
            continue
        ante.append(float(any(sp.tag == "ANTE" and s < sp.end and e > sp.start for sp in ex.spans)))
        hit = next((sp for sp in ex.spans if sp.tag != "ANTE" and s < sp.end and e > sp.start), None)
        tag, prev = tag_of(hit, prev)
        tags.append(RULE_TAG[tag])
        if hit is not None and hit.tag == "LIT":
            lit_tokens[lit_ids[id(hit)]].append(t)
    return tags, ante, lit_tokens, opt_tokens


# ---- hand-written, hand-labelled rules (train/common/people_rules) ---------------------------


@dataclasses.dataclass
class LabelledRule:
    """A hand-labelled rule in the shape rule_example reads (an Item's rule, options, reading)."""

    rule: str
    options: list[tuple[str, str]]
    reading: dict
    state: str = ""


def people_rule(row: dict) -> LabelledRule:
    clauses = [
        {"letter": c["letter"], "texts": c["texts"], "antes": c["antes"], "join": c["join"]}
        for c in row["clauses"]
    ]
    return LabelledRule(
        row["rule"], [tuple(o) for o in row["options"]], {"clauses": clauses, "default": row["default"]}
    )


def resolved(text: str, ante: str | None) -> str:
    """A literal with its leading pronoun replaced by the words it stands for."""
    if not ante:
        return text
    rest = text.split(" ", 1)
    return ante + (" " + rest[1] if len(rest) > 1 else "")


def people_judges(rule_row: dict, sit_row: dict) -> list[list[JudgeExample]]:
    """Per hand-written situation, every literal of its rule with the hand-labelled truth."""
    out = []
    for sit in sit_row["situations"]:
        group = []
        for c, holds in zip(rule_row["clauses"], sit["holds"]):
            for text, ante, h in zip(c["texts"], c["antes"], holds):
                group.append(JudgeExample(resolved(text, ante), sit["state"], bool(h), numbers_known=False))
        out.append(group)
    return out
