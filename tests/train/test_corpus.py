"""Tests of the corpus (train/nano/corpus/: generate, tables, events, the stages' knobs).

python3 -m unittest tests/train/test_corpus.py -v
"""

from __future__ import annotations

import random
import re
import unittest

from tests.train.helpers import VOCAB
from train.nano.corpus.curriculum import STAGES
from train.nano.corpus.generate import example
from train.nano.corpus.scenes import OPPOSITE
from train.nano.tokenizer.bpe import Tokenizer


class CorpusTest(unittest.TestCase):
    def test_deterministic(self):
        self.assertEqual(example(3, 4, 17).text(), example(3, 4, 17).text())
        self.assertNotEqual(example(3, 4, 17).text(), example(4, 4, 17).text())

    def test_answers_are_option_letters(self):
        for st in STAGES:
            for i in range(50):
                ex = example(0, st, i)
                # the stage's option range binds word tables; scene tables (corpus/scenes.py)
                # size themselves from their direction sets: 2-5 options
                lo, hi = (2, 5) if ex.kind == "scene" else STAGES[st].options
                self.assertTrue(lo <= len(ex.option_letters) <= hi, (st, ex.option_letters))
                self.assertTrue(set(ex.answers) <= set(ex.option_letters))
                self.assertGreater(len(ex.suffixes), 0)

    def test_stage0_situation_contains_its_condition(self):
        # stages 0-1: "W1 L1. W2 L2." (zero gap) and each situation holds its answer's W verbatim;
        # stage 0 lists the clauses in option order (A first)
        for st in (0, 1):
            for i in range(50):
                ex = example(1, st, i)
                rule = ex.prefix.split("\n")[0].removeprefix("Rule: ")
                clauses = [c.rsplit(" ", 1) for c in rule.rstrip(".").split(". ")]
                cond = {L: w.removeprefix("the ") for w, L in clauses}
                if st == 0:
                    self.assertEqual([L for _, L in clauses], sorted(cond), rule)
                for s, ans in zip(ex.suffixes, ex.answers):
                    words = s.removeprefix("Situation: ").split("\n")[0].split(", ")
                    self.assertIn(cond[ans], words, (rule, s, ans))

    def test_mixed_clause_tables_answer_by_the_clause_letter(self):
        # stage 13: the answer is the letter written in the clause the situation opens with,
        # whatever the option texts say; the default is the letter of the "otherwise" sentence
        from train.nano.corpus.scenes import NEUTRAL, mixed_clause_table

        disagree = 0
        for i in range(200):
            rng = random.Random(f"mixed:{i}")
            t = mixed_clause_table(rng, 0.35)
            letters = [o.letter for o in t.options]
            self.assertEqual(len(set(letters)), len(letters))
            self.assertTrue(2 <= len(letters) <= 5, letters)
            sentences = [s.rstrip(".") for s in t.rule.split(". ")]
            text = {o.letter: o.text for o in t.options}
            for j in range(6):
                sit, ans = t.situation(random.Random(f"mixed:{i}:{j}"))
                self.assertIn(ans, letters)
                head = sit.split(",")[0].split(";")[0].split(" and ")[0]
                hits = [s for s in sentences if s.split()[-1] == ans or f" {ans} when" in s]
                self.assertEqual(len(hits), 1, (t.rule, sit, ans))
                if text[ans] in NEUTRAL:
                    self.assertTrue(
                        any(w in hits[0] for w in ("Otherwise", "other case", "Else")), (t.rule, ans)
                    )
                else:
                    cond = head.split(" ", 2)[2] if head.count(" ") >= 2 else head
                    self.assertIn(cond.split(" ", 1)[1] if " " in cond else cond, hits[0], (t.rule, sit, ans))
                    d = head.split()[-1]
                    disagree += d in OPPOSITE and not text[ans].endswith(d) and f" {d} " not in text[ans]
        self.assertGreater(disagree, 100)  # option texts often name another direction

    def test_hard_match_tables(self):
        # letter_first and partial_repeat (the removed stage 63): every clause puts its letter before its condition, and a
        # repeated part of another condition appears in two phrases; the answer's condition is
        # still in the situation whole. At 0 the knobs draw nothing: stage 25's stream is as before.
        from dataclasses import replace

        from train.nano.corpus.tables import match_table

        hard = replace(
            STAGES["word-tables"], partial=0.6, partial_repeat=0.4, letter_first=0.5
        )  # the removed stage 63
        st = replace(hard, letter_first=1.0, partial=1.0, partial_repeat=1.0, case=0.0, article=0.0)
        repeats = 0
        for k in range(100):
            t = match_table(random.Random(k), st)
            for clause in re.split(r"(?<=\.) |; |\n", t.rule):
                self.assertRegex(clause, r"^(Pick|Choose) [A-F] when", t.rule)
            for j in range(5):
                s, ans = t.situation(random.Random(j))
                phrases = re.split(
                    r", |; | and | with ", re.sub(r"^(\w+ )?\w+: |^(Now|Here|There is|You see) |\.$", "", s)
                )
                conds = [" ".join(c) for o in t.options if o.letter == ans for c in o.conds]
                self.assertTrue(any(c in phrases for c in conds), (t.rule, s, ans))
                repeats += len(phrases) > len(set(phrases))
        self.assertGreater(repeats, 100)
        plain = replace(hard, letter_first=0.0, partial=0.3, partial_repeat=0.0)
        self.assertEqual(plain, STAGES["word-tables"])
        a, b = match_table(random.Random(7), plain), match_table(random.Random(7), STAGES["word-tables"])
        self.assertEqual(a.rule, b.rule)
        self.assertEqual(a.situation(random.Random(1)), b.situation(random.Random(1)))

    def test_made_up_words(self):
        # stage 68: about a third of the content words are no dictionary word (spliced from two),
        # the situation still holds its answer's condition whole; at 0 the stream is stage 25's
        from dataclasses import replace

        from train.nano.corpus import wordlists as W
        from train.nano.corpus.tables import match_table

        known = set(W.dictionary_words())
        made = total = 0
        for k in range(60):
            t = match_table(random.Random(k), STAGES["made-up-words"])
            words = [w.lower() for o in t.options for c in o.conds for w in c]
            total += len(words)
            made += sum(w not in known for w in words)
            for j in range(4):
                s, ans = t.situation(random.Random(j))
                conds = [" ".join(c).lower() for o in t.options if o.letter == ans for c in o.conds]
                self.assertTrue(not conds or any(c in s.lower() for c in conds), (t.rule, s, ans))
        self.assertGreater(made / total, 0.15)
        self.assertLess(made / total, 0.45)
        self.assertEqual(replace(STAGES["made-up-words"], made_up=0.0, seed=25), STAGES["word-tables"])

    def test_partial_matches_never_spell_a_whole_condition(self):
        # partial_whole False (the eval's stream): parts of another option's condition, drawn for
        # several distractors, never add up to all of its words, so the situation states exactly
        # one condition. At True (every training stage) they can: the eval had such items.
        from dataclasses import replace

        from train.nano.corpus.tables import match_table

        def second_answers(st) -> int:
            n = 0
            for k in range(150):
                t = match_table(random.Random(k), st)
                for j in range(6):
                    s, ans = t.situation(random.Random(j))
                    words = set(re.findall(r"[a-z']+", s.lower()))
                    n += any(
                        len(c) > 1 and all(w.lower() in words for w in c)
                        for o in t.options
                        if o.letter != ans
                        for c in o.conds
                    )
            return n

        st = replace(STAGES["partial-matches"], partial=1.0, distractors=(3, 4))
        self.assertGreater(second_answers(st), 20)
        self.assertEqual(second_answers(replace(st, partial_whole=False)), 0)

    def test_default_texts_drawn_wide(self):
        # stage 66: most "otherwise" options of scene clause tables are not an idle phrase of
        # NEUTRAL, are never a clause's option text, and a default situation still answers the
        # default's letter. At 0 the knob draws nothing: stage 65's stream is as before.
        from dataclasses import replace

        from train.nano.corpus import scenes as S

        default_re = re.compile(
            r"(?:Otherwise,? (?:choose|pick|answer)|In any other case choose|Else choose) ([A-F])\."
        )
        wide = defaults = hits = 0
        for k in range(200):
            t = S.mixed_clause_table(random.Random(k), 0.5, default_text=1.0)
            m = default_re.search(t.rule)
            if not m:
                continue
            defaults += 1
            texts = [o.text for o in t.options]
            self.assertEqual(len(texts), len(set(texts)), t.options)
            text = {o.letter: o.text for o in t.options}[m.group(1)]
            wide += text not in S.NEUTRAL
            for j in range(6):
                s, letter = t.situation(random.Random(j))
                if any(state in s.split(",")[0].split(";")[0] for state in S.STATES):
                    hits += letter == m.group(1)
        self.assertGreater(defaults, 80)
        self.assertEqual(wide, defaults)
        self.assertGreater(hits, 50)
        self.assertEqual(replace(STAGES["default-texts"], default_text=0.0, seed=65), STAGES["reworded"])
        for k in range(20):
            a = S.scene_table(random.Random(k), level=6, default_text=0.0, events=0.0)
            b = S.scene_table(random.Random(k), level=6)
            self.assertEqual((a.rule, a.options), (b.rule, b.options))

    def test_event_tables_state_exactly_one_condition(self):
        # stage 67's event tables: a situation holds the answering clause's noun and predicate
        # together and no other clause's pair; a default situation holds none
        from train.nano.corpus.events import event_table

        after = re.compile(
            r"(?:if|when) the (\w+) (is \w+|\w+),? (?:then )?(?:(?:choose|pick|answer) )?([A-F])\b", re.I
        )
        before = re.compile(r"(?:choose|pick) ([A-F]) (?:if|when) the (\w+) (is \w+|\w+)", re.I)
        default_re = re.compile(
            r"(?:otherwise|else|in any other case)(?: choose| pick| answer)? ([A-F])\b", re.I
        )
        shared = defaults = 0
        for k in range(150):
            t = event_table(random.Random(k), 0.6)
            conds = {(n, p): L for n, p, L in after.findall(t.rule)}
            conds.update({(n, p): L for L, n, p in before.findall(t.rule)})
            self.assertGreaterEqual(len(conds), 2, t.rule)
            nouns = [n for n, _ in conds]
            shared += len(set(nouns)) < len(nouns)
            m = default_re.search(t.rule)
            for j in range(8):
                s, letter = t.situation(random.Random(j))
                held = [L for (n, p), L in conds.items() if f"the {n} {p}" in s.lower()]
                if m and letter == m.group(1):
                    defaults += 1
                    self.assertEqual(held, [], (t.rule, s))
                else:
                    self.assertEqual(held, [letter], (t.rule, s))
        self.assertGreater(shared, 5)
        self.assertGreater(defaults, 20)

    def test_event_shared_knob(self):
        # stage 69 raises how often clauses share a noun; at the default the draws (and so stage
        # 67's stream) are as before
        from train.nano.corpus.events import EventKnobs, event_table

        noun = re.compile(r"the (\w+) (?:is \w+|\w+),? (?:then )?(?:choose|pick|answer)?", re.I)

        def shared_nouns(p: float) -> int:
            n = 0
            for k in range(200):
                t = event_table(random.Random(k), 0.6, 0.0, EventKnobs(shared=p))
                nouns = noun.findall(t.rule.split("otherwise")[0])
                n += len(nouns) > 2 and len(set(nouns)) < len(nouns)
            return n

        self.assertEqual(
            event_table(random.Random(3), 0.6).rule,
            event_table(random.Random(3), 0.6, 0.0, EventKnobs(shared=0.3)).rule,
        )
        lo, mid, hi = shared_nouns(0.0), shared_nouns(0.3), shared_nouns(1.0)
        self.assertLess(lo, mid)
        self.assertLess(mid, hi)
        self.assertEqual(STAGES["events-shared"].events, 1.0)
        # stage 70's tails: at 0 the situations are as before; at 1 every stated condition ends in
        # a place, right after its predicate (and adverb), so the condition stays whole
        from train.nano.corpus.events import PREPS

        placed = {0.0: 0, 1.0: 0}
        for k in range(30):
            base = event_table(random.Random(k), 0.6)
            for tails in placed:
                t = event_table(random.Random(k), 0.6, 0.0, EventKnobs(tails=tails))
                self.assertEqual(t.rule, base.rule)
                for j in range(4):
                    s, letter = t.situation(random.Random(j))
                    placed[tails] += any(f" {p} " in s for p in PREPS)
                    if not tails:
                        self.assertEqual((s, letter), base.situation(random.Random(j)))
        self.assertLess(placed[0.0], 10)
        self.assertGreater(placed[1.0], 90)  # of 120: all but the default situations
        self.assertGreater(STAGES["events-shared"].event_shared, STAGES["events"].event_shared)

    def test_event_uniform_knob(self):
        # stage 71: at 1 every clause's predicate takes one form ("is V-ing" / "V-s" / "is A"),
        # so only the stems tell clauses apart; at 0 the draws (stage 67's stream) are as before
        from train.nano.corpus import wordlists as W
        from train.nano.corpus.events import EventKnobs, _forms, event_table

        forms = [set(f) for f in _forms(W.current_split())]
        pred = re.compile(r"the \w+ (is \w+|\w+)(?=[,.;]| choose| pick| then|$)")

        def form_counts(p: float) -> tuple[int, int]:
            uniform = mixed = 0
            for k in range(100):
                t = event_table(random.Random(k), 0.6, 0.0, EventKnobs(uniform=p))
                found = pred.findall(t.rule)
                self.assertGreaterEqual(len(found), 2, t.rule)
                kinds = {i for x in found for i, f in enumerate(forms) if x in f}
                uniform += len(kinds) == 1
                mixed += len(kinds) > 1
            return uniform, mixed

        for k in range(20):
            self.assertEqual(
                event_table(random.Random(k), 0.6).rule,
                event_table(random.Random(k), 0.6, 0.0, EventKnobs(uniform=0.0)).rule,
            )
        self.assertEqual(form_counts(1.0)[1], 0)
        self.assertGreater(form_counts(0.0)[1], 40)
        self.assertEqual(STAGES["events-one-form"].event_uniform, 0.5)
        self.assertEqual(STAGES["events"].event_uniform, 0.0)

        # the near knob (the removed stage 73): every clause's predicate stem starts with the same letter
        def alike(near: float) -> int:
            n = 0
            for k in range(60):
                t = event_table(random.Random(k), 0.6, 0.0, EventKnobs(uniform=1.0, near=near))
                n += len({x.removeprefix("is ")[0] for x in pred.findall(t.rule)}) == 1
            return n

        self.assertGreater(alike(1.0), 50)
        self.assertLess(alike(0.0), 15)

    def test_event_same_end_knob(self):
        # stage 74: every clause's predicate ends in one BPE token ("is burning" / "is barking" both
        # in "ing"); at 0 the draws are as before
        from train.nano.corpus.events import EventKnobs, event_table

        tok = Tokenizer.load(VOCAB)
        pred = re.compile(r"the \w+ (is \w+|\w+)(?=[,.;]| choose| pick| then|$)")

        def same_end(p: float) -> int:
            n = 0
            for k in range(60):
                t = event_table(random.Random(k), 0.6, 0.0, EventKnobs(same_end=p))
                ends = {tok.encode(" " + x.split()[-1])[-1] for x in pred.findall(t.rule)}
                n += len(ends) == 1
            return n

        for k in range(20):
            self.assertEqual(
                event_table(random.Random(k), 0.6).rule,
                event_table(random.Random(k), 0.6, 0.0, EventKnobs(same_end=0.0)).rule,
            )
        self.assertEqual(same_end(1.0), 60)
        self.assertLess(same_end(0.0), 30)
        self.assertEqual(STAGES["events-same-end"].event_same_end, 0.5)

    def test_event_clause_marks(self):
        # event marks (the removed stage 72): they wrap each clause's condition and letter with that letter and draw
        # nothing (the text is the unmarked table's); stage 67 leaves event tables unmarked
        from train.nano.corpus import marks
        from train.nano.corpus.events import EventKnobs, event_table

        for k in range(40):
            plain = event_table(random.Random(k), 0.6, 0.0, EventKnobs(shared=0.6, uniform=0.5))
            t = event_table(random.Random(k), 0.6, 0.0, EventKnobs(shared=0.6, uniform=0.5, marked=2))
            self.assertEqual(marks.strip(t.rule), plain.rule)
            text, spans = marks.spans(t.rule)
            raw = text.encode()
            letters = {o.letter for o in t.options}
            for a, b, kind in spans:
                letter = "ABCDEF"[kind - marks.CLAUSE]
                self.assertIn(letter, letters)
                span = raw[a:b].decode()
                self.assertTrue(
                    span == letter or " " in span, (span, t.rule)
                )  # the letter or "noun predicate"
            self.assertEqual(
                len(spans),
                2 * len(t.options)
                - ("otherwise" in text.lower() or "else" in text.lower() or "other case" in text),
            )
        self.assertFalse(any(st.event_marks for st in STAGES.values()))  # the removed stage 72's knob


if __name__ == "__main__":
    unittest.main()
