"""The reader's decision in PyTorch, as the runtime makes it (the reference for the C++ side).

read(rule, options)  -> Reading: per option its clauses (literal texts and their join) and
                        whether it is the default; done once per rule.
decide(reading, state) -> letter, probabilities, and each literal's probability of holding.

Combination: a clause of literals joined by "and" holds with the product of their
probabilities, by "or" with 1 - the product of their complements; an option's condition holds
as its most likely clause. P(no condition holds) = the product of the options' complements;
with a default, the default gets it and the others share the rest in proportion; without one,
the options' probabilities are normalized.
"""

from __future__ import annotations

import dataclasses

import torch

from train.reader.data import JUDGE_TAGS, OPS, TAG, option_query


@dataclasses.dataclass
class Clause:
    texts: list[str]
    join: str  # "", "and", "or"


@dataclasses.dataclass
class OptionReading:
    letter: str
    text: str
    clauses: list[Clause]
    p_default: float


@dataclasses.dataclass
class Reading:
    options: list[OptionReading]

    @property
    def default(self) -> str | None:
        best = max(self.options, key=lambda o: o.p_default)
        return best.letter if best.p_default >= 0.5 else None

    def literals(self) -> list[str]:
        return [t for o in self.options for c in o.clauses for t in c.texts]


def encode_pairs(tok, firsts: list[str], seconds: list[str], max_len: int = 256) -> dict:
    return tok(
        firsts,
        seconds,
        padding=True,
        truncation="only_second",
        max_length=max_len,
        return_tensors="pt",
        return_offsets_mapping=True,
    )


def encode_singles(tok, texts: list[str], max_len: int = 256) -> dict:
    return tok(
        texts,
        padding=True,
        truncation=True,
        max_length=max_len,
        return_tensors="pt",
        return_offsets_mapping=True,
    )


def clauses_from_tags(rule: str, offsets, seq_ids, tags: list[int]) -> list[Clause]:
    """A reading pass per option: its tags (data.TAGS, antecedents a tag of their own) in the
    rule's segment (1) as clauses."""
    ante = [t == TAG["ANTE"] for t in tags]
    return group_clauses(literals_from_tags(rule, offsets, seq_ids, tags, ante, TAG, segment=1))


def group_clauses(lits: list[tuple[str, list[int], str]]) -> list[Clause]:
    """Two literals with an and/or between them form one clause, otherwise separate clauses
    (several conditions for one option)."""
    clauses: list[Clause] = []
    for text, _, join in lits:
        if join and clauses:
            clauses[-1].texts.append(text)
            clauses[-1].join = clauses[-1].join or join
        else:
            clauses.append(Clause([text], ""))
    return clauses


@torch.no_grad()
def read(model, tok, rule: str, options: list[tuple[str, str]]) -> Reading:
    if getattr(model, "reading_kind", "option") == "rule":
        return read_rule(model, tok, rule, options)
    queries = [option_query(letter, text) for letter, text in options]
    enc = encode_pairs(tok, queries, [rule] * len(options))
    offsets = enc.pop("offset_mapping").tolist()
    tag_logits, def_logits = model.read(enc)
    tags = tag_logits.argmax(-1).tolist()
    p_def = torch.sigmoid(def_logits).tolist()
    out = []
    for i, (letter, text) in enumerate(options):
        seq_ids = [s if s is not None else -1 for s in enc.sequence_ids(i)]
        out.append(
            OptionReading(letter, text, clauses_from_tags(rule, offsets[i], seq_ids, tags[i]), p_def[i])
        )
    return Reading(out)


def parse_number(text: str) -> float | None:
    t = text.replace(",", "").replace(" ", "").replace("\u2212", "-")
    try:
        return float(t)
    except ValueError:
        return None


def tagged_run(text: str, offsets, seq_ids, tags, want: int, seq: int) -> str | None:
    """The characters of the first run of tokens tagged `want` in segment `seq`."""
    start = end = None
    for (s, e), sid, t in zip(offsets, seq_ids, tags):
        if sid != seq or e <= s:
            continue
        if t == want:
            start = s if start is None else start
            end = e
        elif start is not None:
            break
    return None if start is None else text[start:end]


def compare(op: str, v: float, t1: float, t2: float | None) -> bool | None:
    if op == "in":
        return None if t2 is None else min(t1, t2) <= v <= max(t1, t2)
    return {">": v > t1, ">=": v >= t1, "<": v < t1, "<=": v <= t1}[op]


def mix(p_judge: float, op_p: list[float], t1: str | None, t2: str | None, v: str | None) -> float:
    """P(holds): a literal read as a numeric comparison (P(op != none) >= 0.5) whose numbers
    parse is decided by comparing them, weighted by that probability; else the judge alone."""
    p_num = 1 - op_p[0]
    if p_num < 0.5:
        return p_judge
    op = OPS[1 + max(range(len(OPS) - 1), key=lambda k: op_p[k + 1])]
    n1, n2, nv = (parse_number(x) if x else None for x in (t1, t2, v))
    if n1 is None or nv is None:
        return p_judge
    c = compare(op, nv, n1, n2)
    return p_judge if c is None else p_num * float(c) + (1 - p_num) * p_judge


@torch.no_grad()
def judge(model, tok, conditions: list[str], states: list[str]) -> list[float]:
    """P(condition holds | state) for each pair."""
    if not conditions:
        return []
    if model.judge_kind == "late":
        return judge_late(model, tok, conditions, states)
    enc = encode_pairs(tok, conditions, states)
    offsets = enc.pop("offset_mapping").tolist()
    logit, op_logits, num_logits = model.holds(enc)
    p = torch.sigmoid(logit).tolist()
    op_p = torch.softmax(op_logits, -1).tolist()
    tags = num_logits.argmax(-1).tolist()
    out = []
    for i, (cond, state) in enumerate(zip(conditions, states)):
        seq = [x if x is not None else -1 for x in enc.sequence_ids(i)]
        t1 = tagged_run(cond, offsets[i], seq, tags[i], JUDGE_TAGS.index("T1"), 0)
        t2 = tagged_run(cond, offsets[i], seq, tags[i], JUDGE_TAGS.index("T2"), 0)
        v = tagged_run(state, offsets[i], seq, tags[i], JUDGE_TAGS.index("V"), 1)
        out.append(mix(p[i], op_p[i], t1, t2, v))
    return out


@torch.no_grad()
def judge_late(model, tok, conditions: list[str], states: list[str]) -> list[float]:
    """The late judge: each distinct literal and situation encoded once (the runtime caches
    the literals with the reading), then each pair judged from both."""
    lits = list(dict.fromkeys(conditions))
    sts = list(dict.fromkeys(states))
    le, se = encode_singles(tok, lits), encode_singles(tok, sts)
    l_off, s_off = le.pop("offset_mapping").tolist(), se.pop("offset_mapping").tolist()
    lit, st = model.literal_part(le), model.state_part(se)
    li = torch.tensor([lits.index(c) for c in conditions])
    si = torch.tensor([sts.index(s) for s in states])
    logit, value = model.late_holds(lit, st, li, si)
    p = torch.sigmoid(logit).tolist()
    op_p = torch.softmax(lit["op"], -1).tolist()
    thr = lit["thr"].argmax(-1).tolist()
    vtag = (value > 0).long().tolist()
    out = []
    for k, (cond, state) in enumerate(zip(conditions, states)):
        i, j = int(li[k]), int(si[k])
        lseq = [0 if x is not None else -1 for x in le.sequence_ids(i)]
        sseq = [0 if x is not None else -1 for x in se.sequence_ids(j)]
        t1 = tagged_run(cond, l_off[i], lseq, thr[i], JUDGE_TAGS.index("T1"), 0)
        t2 = tagged_run(cond, l_off[i], lseq, thr[i], JUDGE_TAGS.index("T2"), 0)
        v = tagged_run(state, s_off[j], sseq, vtag[k], 1, 0)
        out.append(mix(p[k], op_p[i], t1, t2, v))
    return out


def combine(reading: Reading, p_lit: list[float]) -> dict[str, float]:
    """Letter -> probability, from the literals' probabilities in reading.literals() order."""
    it = iter(p_lit)
    q: dict[str, float] = {}
    for o in reading.options:
        best = 0.0
        for c in o.clauses:
            ps = [next(it) for _ in c.texts]
            if c.join == "or":
                v = 1.0
                for p in ps:
                    v *= 1 - p
                v = 1 - v
            else:
                v = 1.0
                for p in ps:
                    v *= p
            best = max(best, v)
        q[o.letter] = best
    d = reading.default
    none = 1.0
    for letter, v in q.items():
        if letter != d:
            none *= 1 - v
    if d is not None:
        rest = {k: v for k, v in q.items() if k != d}
        total = sum(rest.values())
        probs = {k: (1 - none) * v / total if total > 0 else 0.0 for k, v in rest.items()}
        probs[d] = none if total > 0 else 1.0
    else:
        total = sum(q.values()) or 1.0
        probs = {k: v / total for k, v in q.items()}
    return {o.letter: probs.get(o.letter, 0.0) for o in reading.options}


def decide(model, tok, reading: Reading, states: list[str]) -> list[dict]:
    """One decision per state: {"letter", "probs", "literals": [(text, p)]}."""
    lits = reading.literals()
    flat = judge(model, tok, [t for _ in states for t in lits], [s for s in states for _ in lits])
    out = []
    for k, _ in enumerate(states):
        p = flat[k * len(lits) : (k + 1) * len(lits)]
        probs = combine(reading, p)
        letter = max(probs, key=probs.get)
        out.append({"letter": letter, "probs": probs, "literals": list(zip(lits, p))})
    return out


def literals_from_tags(
    rule: str, offsets, seq_ids, tags: list[int], ante: list[bool], table: dict, segment: int
):
    """The literals of a reading pass: [(text with its pronoun resolved, token indices, join
    with the previous literal)]. Runs of B I… (or PRON I…) in `segment` are literals; a PRON
    literal is judged with the nearest antecedent run before it in place of the pronoun."""
    runs: list[list[int]] = []  # antecedent runs [start, end]
    lits: list[dict] = []
    cur = None
    pending = ""
    prev_ante = False
    for t, ((s, e), sid, tag) in enumerate(zip(offsets, seq_ids, tags)):
        if sid != segment or e <= s:
            cur, prev_ante = None, False
            continue
        if ante[t]:
            if prev_ante:
                runs[-1][1] = e
            else:
                runs.append([s, e])
        prev_ante = bool(ante[t])
        if tag in (table["B"], table["PRON"]) or (tag == table["I"] and cur is None):
            a = runs[-1] if tag == table["PRON"] and runs else None
            cur = {
                "start": s,
                "end": e,
                "pron_end": e if a else None,
                "ante": rule[a[0] : a[1]] if a else None,
            }
            cur["tokens"] = [t]
            cur["join"] = pending
            pending = ""
            lits.append(cur)
        elif tag == table["I"]:
            cur["end"] = e
            cur["tokens"].append(t)
        else:
            cur = None
            if tag == table["AND"]:
                pending = "and"
            elif tag == table["OR"]:
                pending = "or"
    out = []
    for x in lits:
        text = (
            rule[x["start"] : x["end"]] if x["ante"] is None else x["ante"] + rule[x["pron_end"] : x["end"]]
        )
        out.append((text, x["tokens"], x["join"]))
    return out


def literals_from_rule_tags(rule: str, offsets, seq_ids, tags: list[int], ante: list[bool]):
    """A one-pass reading's literals (data.RULE_TAGS in the rule's segment, 0); antecedents
    come from their own flags, since they may sit inside an earlier literal."""
    from train.reader.data import RULE_TAG

    return literals_from_tags(rule, offsets, seq_ids, tags, ante, RULE_TAG, segment=0)


@torch.no_grad()
def read_rule(model, tok, rule: str, options: list[tuple[str, str]]) -> Reading:
    """One pass over (rule, lettered options); each clause goes to the option its literals
    point at (their link logits averaged)."""
    from train.reader.data import option_listing
    from train.reader.model import pool

    listing, spans = option_listing(options)
    enc = encode_pairs(tok, [rule], [listing])
    offsets = enc.pop("offset_mapping")[0].tolist()
    seq = [x if x is not None else -1 for x in enc.sequence_ids(0)]
    h = model.encode(enc)
    tags = model.rule_tag(h)[0].argmax(-1).tolist()
    ante = (model.ante(h)[0, :, 0] > 0).tolist()
    lits = literals_from_rule_tags(rule, offsets, seq, tags, ante)
    t = h.shape[1]
    opt_masks = torch.zeros(1, len(options), t)
    for k, (a, b) in enumerate(spans):
        for i, ((s, e), sid) in enumerate(zip(offsets, seq)):
            if sid == 1 and e > s and s < b and e > a:
                opt_masks[0, k, i] = 1.0
    opt = pool(h, opt_masks)
    p_default = torch.sigmoid(model.rule_default(opt))[0, :, 0].tolist()
    readings = [OptionReading(letter, text, [], p_default[k]) for k, (letter, text) in enumerate(options)]
    if lits:
        from train.reader.data import clause_windows

        clauses: list[tuple[Clause, list[int]]] = []
        for text, toks, join in lits:
            if join and clauses:
                clauses[-1][0].texts.append(text)
                clauses[-1][0].join = clauses[-1][0].join or join
                clauses[-1][1].extend(toks)
            else:
                clauses.append((Clause([text], ""), list(toks)))
        rule_tokens = [i for i, ((s, e), sid) in enumerate(zip(offsets, seq)) if sid == 0 and e > s]
        windows = clause_windows([toks for _, toks in clauses], rule_tokens)
        masks = [torch.zeros(1, len(clauses), t) for _ in range(3)]
        for k, ((_, own), (left, right)) in enumerate(zip(clauses, windows)):
            for m, toks in zip(masks, (own, left, right)):
                m[0, k, toks] = 1.0
        link = model.link(h, masks, opt)[0]
        for k, (c, _) in enumerate(clauses):
            readings[int(link[k].argmax())].clauses.append(c)
    return Reading(readings)
