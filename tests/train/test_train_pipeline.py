"""Tests of the training pipeline (train/): corpus, held-out filter, tokenizer, model, export.

    python3 -m unittest discover -s tests/train -v

The GGUF round trip is checked with an independent NumPy forward written from the `dream`
equations (reading the exported file back), including the prefix-cache semantics: a packed
row of several situations gives the same logits as each situation run on its own.
"""

from __future__ import annotations

import os
import random
import re
import sys
import tempfile
import unittest

import numpy as np
import torch

from train.nano.corpus.curriculum import STAGES
from train.nano.corpus.generate import example
from train.nano.corpus.scenes import OPPOSITE
from train.common.heldout.filter import HeldOut
from train.common.heldout.filter import default as default_heldout
from train.nano.tokenizer.bpe import Tokenizer

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

VOCAB = os.path.join(ROOT, "train", "nano", "tokenizer", "vocab.json")


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


def changed_keeping_letters(test: unittest.TestCase, knob: str) -> int:
    """Scene tables with a rewording knob at 0 and at 1: same rule, same letter for the same
    situation draw; returns how many of the 150 situations the knob changed."""
    from train.nano.corpus import scenes as S

    changed = 0
    for k in range(30):
        plain, varied = (S.scene_table(random.Random(k), level=3, **{knob: p}) for p in (0.0, 1.0))
        test.assertEqual(plain.rule, varied.rule)
        for j in range(5):
            (s0, l0), (s1, l1) = plain.situation(random.Random(j)), varied.situation(random.Random(j))
            test.assertEqual(l0, l1)
            changed += s0 != s1
    return changed


class RewordTest(unittest.TestCase):
    """Stage 29's rewording keeps what a situation says: the condition's direction survives,
    a synonym never collides with another verb of the rule, and the letter is unchanged."""

    def test_reword(self):
        from train.nano.corpus import reword as R
        from train.nano.corpus import scenes as S

        motion = {v0 for v0, _ in S.MOTION}
        for v, syns in R.SYNONYMS.items():
            self.assertIn(v, motion)
            for s0, s3 in syns:  # a synonym is never another MOTION verb (distractors use those)
                self.assertTrue(s0.split()[0] == v or s0.split()[0] not in motion, s0)
        rule = "If the fox is moving left, choose A. If the fox is heading right, choose B."
        seen = set()
        for i in range(400):
            r = random.Random(i)
            out = R.reword(r, "the fox is moving left, leans far right, is near the barn", rule)
            head_dir = "left" in out.split("right")[0] or out.startswith("leaning") or "although" in out
            self.assertIn("left", out)
            self.assertTrue(head_dir, out)
            self.assertNotRegex(out, r"\b(going|goes|travelling|travels)\b")  # heading's synonyms too
            seen.add(out)
        self.assertGreater(len(seen), 40)  # it does reword
        r = random.Random(1)
        outs = {
            R.reword(r, "the fox is still left of the barn", "If the fox is still left of the barn, wait.")
            for _ in range(200)
        }
        self.assertTrue(any("not moving" in o or "at rest" in o or "stands still" in o for o in outs))
        self.assertTrue(all("left" in o for o in outs))
        # a reworded table answers what the same table does unreworded
        self.assertGreater(changed_keeping_letters(self, "rephrase"), 75)


class RewordLevel2Test(unittest.TestCase):
    """Stage 42's rewording: more verb and modifier synonyms, distractors' directions reworded,
    a whole distractor clause sometimes first; what the situation says is unchanged."""

    def test_reword_level2(self):
        from train.nano.corpus import reword as R
        from train.nano.corpus import scenes as S

        motion = {v0 for v0, _ in S.MOTION}
        for v, syns in R.SYNONYMS2.items():
            self.assertIn(v, motion)
            for s0, _ in syns:
                self.assertNotIn(s0.split()[0], motion, s0)
                self.assertNotIn(s0.split()[0][:-3], S.ACTIONS, s0)  # "racing" is no option's verb
        rule = "If the fox sinks too fast, choose A. If the fox leans too far left, choose B. Otherwise choose C."
        seen, mods, first = set(), set(), 0
        for i in range(400):
            out = R.reword(
                random.Random(i), "the fox sinks too fast, the barn is left, and the owl leans right", rule, 2
            )
            self.assertRegex(out, r"fox (sinks|drops|descends|comes down|plunges) too")
            mods.add(re.search(r"fox \w+( down)? (too \w+)", out).group(2))
            first += not out.startswith("the fox") and not out.startswith("leaning")
            self.assertIn("left", out)
            self.assertIn("right", out)
            seen.add(out)
            self.assertEqual(
                R.reword(random.Random(i), "the fox sinks too fast", rule, 1).count("too fast"), 1
            )
        self.assertEqual(mods, {"too fast", "too quickly", "too rapidly"})
        self.assertGreater(first, 20)  # "the barn is left; the fox ..." (a whole clause first)
        self.assertGreater(len(seen), 100)
        # a modifier the rule itself uses is never the new word
        rule2 = "If the fox moves left fast, choose A. If the fox moves left quickly, choose B."
        for i in range(200):
            self.assertNotIn("quickly", R.reword(random.Random(i), "the fox moves left fast", rule2, 2))


class FrontTest(unittest.TestCase):
    """The front knob (the removed stage 32) moves one phrase before the subject and keeps every other word."""

    def test_front(self):
        from train.nano.corpus import reword as R

        r = random.Random(0)
        self.assertEqual(
            R.front(r, "the fox is moving left, is high above the barn"),
            "high above the barn, the fox is moving left",
        )
        self.assertEqual(R.front(r, "the fox leans right; stays put"), "the fox leans right; stays put")
        self.assertTrue(
            R.front(r, "the fox is moving left and leans far right").startswith("leaning far right, ")
        )
        self.assertGreater(changed_keeping_letters(self, "front"), 40)


class PlacePoolTest(unittest.TestCase):
    """Stage 30: place nouns from every dictionary noun (rare tokens), never a task's noun."""

    def test_place_nouns(self):
        import re

        from train.nano.corpus import phrases as P
        from train.nano.corpus import scenes as S

        common = set(P._nouns())
        place = re.compile(r"(?:up|above|in|near|to|from|on|under|of) (?:the|a) ([a-z]+)")
        for pool, rare_share in ((0.0, (0.0, 0.0)), (1.0, (0.6, 1.0))):
            found = rare = 0
            for k in range(60):
                t = S.scene_table(random.Random(k), level=3, place_pool=pool)
                for j in range(6):
                    s, _ = t.situation(random.Random(j))
                    for noun in place.findall(s):
                        self.assertNotIn(noun, P.TASK_NOUNS)
                        found += 1
                        rare += noun not in common and noun not in t.rule
            self.assertGreater(found, 40)
            self.assertGreaterEqual(rare / found, rare_share[0])
            self.assertLessEqual(rare / found, rare_share[1])

    def test_mixed_relational_stages(self):
        # stage 37: half scenes (with stage 14's still clauses), 60 % of the word tables relational;
        # stage 47: relational word tables only; stage 30 has none
        kinds = [example(0, 37, i).kind for i in range(300)]
        self.assertGreater(kinds.count("relational"), 60)
        self.assertGreater(kinds.count("scene"), 110)
        self.assertLess(kinds.count("scene"), 190)
        self.assertEqual({example(0, 47, i).kind for i in range(100)}, {"relational"})
        self.assertNotIn("relational", [example(0, 30, i).kind for i in range(300)])

    def test_two_pair_relational_tables(self):
        # stage 61 has most relational word tables in two direction pairs (4 options, each
        # answer's pair partner and the other pair's words all present); stage 51 keeps 0.3
        from train.nano.corpus.curriculum import stage
        from train.nano.corpus.tables import sample_table

        def four_options(st):
            ts = [
                t
                for t in (sample_table(random.Random(k), stage(st)) for k in range(600))
                if t.kind == "relational"
            ]
            return sum(len(t.options) == 4 for t in ts) / len(ts), len(ts)

        share51, n51 = four_options(51)
        share61, n61 = four_options(61)
        self.assertLess(share51, 0.4)
        self.assertGreater(share61, 0.7)
        self.assertGreater(n61, n51)

    def test_more_place_phrases(self):
        # stage 61 has phrases.MORE_PLACES ("along the bottom of the N"); stage 51 never has them
        from train.nano.corpus import phrases
        from train.nano.corpus.generate import example

        def share(st):
            sits = [s for i in range(150) for s in example(0, st, i).suffixes]
            return sum(any(f" the {p} of the " in s for p in phrases.PLACE_PARTS) for s in sits) / len(sits)

        self.assertEqual(share(51), 0)
        self.assertGreater(share(61), 0.01)

    def test_hazard_phrase_first(self):
        # stage 60's toward / away scene situations open with the hazard's phrase about half the
        # time they have one (the goal's phrase, marked, comes later); the older scenes rarely do
        import re

        from train.nano.corpus import marks, scenes

        def share(hazard_first):
            first = with_hazard = 0
            for i in range(300):
                t = scenes.relational_table(random.Random(i), 0.3, 6, marked=True, hazard_first=hazard_first)
                m = re.search(r"toward the (\w+)|away from the (\w+)", t.rule)
                if not m:
                    continue
                goal = m.group(1) or m.group(2)
                for k in range(4):
                    s, _ = t.situation(random.Random(f"{i}:{k}"))
                    plain = marks.strip(s)
                    if " is still" in plain or f"the {goal} " not in plain:
                        continue
                    # a hazard phrase: another thing's "is/lies D" besides the goal's
                    if len(re.findall(r"\b(?:is|lies) \w+", plain)) < 2:
                        continue
                    with_hazard += 1
                    first += not plain.startswith(f"the {goal} ")
                    if hazard_first:
                        self.assertIn(marks.noun(goal), s)
            return first / with_hazard

        self.assertLess(share(0.0), 0.3)
        self.assertGreater(share(0.5), 0.4)

    def test_place_direction_forms(self):
        # stage 61 says a toward / away place's direction in other words ("the goal is 9 steps
        # below"), always a form of the answer's direction; stage 60 never does
        import re

        from train.nano.corpus import scenes

        found = 0
        for i in range(300):
            for pf in (0.0, 0.5):
                t = scenes.relational_table(
                    random.Random(i), 0.3, 6, marked=True, hazard_first=0.5, place_forms=pf
                )
                for k in range(3):
                    s, letter = t.situation(random.Random(f"{i}:{k}"))
                    m = re.search(r"\ue000\w+\ue001 is \d+ \w+ \ue002([\w ]+)\ue003", s)
                    self.assertTrue(m is None or pf, s)
                    if m:
                        direction = {o.letter: o.text for o in t.options}[letter].split()[-1]
                        if re.match(r"(\w+|Keep) away from", t.rule):  # an away rule: the other way
                            direction = scenes.OPPOSITE[direction]
                        self.assertIn(m.group(1), scenes.PLACE_DIR_FORMS[direction], (s, t.rule))
                        found += 1
        self.assertGreater(found, 20)

    def test_scene_letters_out_of_order(self):
        # stage 51 lists most scene tables' letters out of order; stage 37 keeps 65 % in order
        from train.nano.corpus.curriculum import stage
        from train.nano.corpus.tables import sample_table

        def in_order(st):
            ts = [
                t
                for t in (sample_table(random.Random(k), stage(st)) for k in range(300))
                if t.kind == "scene"
            ]
            return sum([o.letter for o in t.options] == list("ABCDEF"[: len(t.options)]) for t in ts) / len(
                ts
            )

        self.assertGreater(in_order(37), 0.5)
        self.assertLess(in_order(51), 0.35)

    def test_still_place_clauses(self):
        # stage 37: "the X is still D of the N" picks the option its clause names, which holds
        # D, the opposite direction or "wait" alike (no "still -> wait" shortcut); without the knob none
        from train.nano.corpus.curriculum import stage
        from train.nano.corpus.tables import relational_table

        holds, other = 0, 0
        for k in range(200):
            t = relational_table(random.Random(k), stage(37))
            for j in range(8):
                s, letter = t.situation(random.Random(j))
                m = re.search(r"is still (\w+) of the", s)
                if m:
                    self.assertIn(f"still {m.group(1)} of the", t.rule)
                    text = {o.letter: o.text for o in t.options}[letter]
                    holds += text.endswith(" " + m.group(1))
                    other += not text.endswith(" " + m.group(1))
        self.assertGreater(holds, 20)
        self.assertGreater(other, 20)
        from dataclasses import replace

        plain = replace(stage(37), still_places=0.0)
        self.assertFalse(
            any(
                re.search(r"still \w+ of the", relational_table(random.Random(k), plain).rule)
                for k in range(200)
            )
        )

    def test_level5_scene_still_clauses_name_options_by_text(self):
        # scene level 4 names a still clause's option by its letter half the time; level 5
        # always by its text, and the situation answers with that option's letter
        from train.nano.corpus.scenes import relational_table

        def clauses(level):
            by_letter = by_text = 0
            for k in range(300):
                t = relational_table(random.Random(k), 0.35, level)
                text = {o.letter: o.text for o in t.options}
                for clause in re.findall(r"[^.]*is still \w+ of the [^.]*", t.rule):
                    by_letter += bool(re.search(r"(?i)\b(choose|pick|answer|take) [A-F]\b", clause))
                    by_text += any(v in clause.lower() for v in text.values())
                for j in range(6):
                    s, letter = t.situation(random.Random(j))
                    m = re.search(r"is still (\w+) of the (\w+)", s)
                    if m and level == 5:
                        clause = re.search(
                            rf"[^.]*still {m.group(1)} of the {m.group(2)}[^.]*", t.rule
                        ).group(0)
                        self.assertIn(text[letter], clause.lower(), (t.rule, s))
            return by_letter, by_text

        l4, t4 = clauses(4)
        l5, t5 = clauses(5)
        self.assertGreater(l4, 40)
        self.assertGreater(t4, 40)
        self.assertEqual(l5, 0)
        self.assertGreater(t5, 100)

    def test_level6_one_still_clause_names_the_neutral_option(self):
        from train.nano.corpus.scenes import NEUTRAL, relational_table

        neutral_named = tables = 0
        for k in range(300):
            t = relational_table(random.Random(k), 0.35, 6)
            texts = {o.text for o in t.options}
            clauses = re.findall(r"[^.]*is still \w+ of the [^.]*", t.rule)
            if len(clauses) == 2 and texts & set(NEUTRAL):
                tables += 1
                neutral_named += any(n in c.lower() for c in clauses for n in texts & set(NEUTRAL))
        self.assertGreater(tables, 60)
        self.assertGreater(neutral_named, 0.65 * tables)  # by text (a quarter are by letter)

    def test_level8_lookup_drill_names_by_letter_half_the_time(self):
        # stage 62's drill: every table has two still clauses, about half naming their option
        # by letter, and a still situation answers with the letter its own clause names
        from train.nano.corpus.scenes import relational_table

        by_letter = clauses_n = checked = 0
        for k in range(200):
            t = relational_table(random.Random(k), 0.35, 8)
            text = {o.letter: o.text for o in t.options}
            clauses = re.findall(r"[^.]*is still \w+ of the [^.]*", t.rule)
            self.assertGreaterEqual(len(clauses), 1, t.rule)
            for c in clauses:
                clauses_n += 1
                by_letter += bool(re.search(r"(?i)\b(choose|pick|answer|take|select) [A-F]\b", c))
            for j in range(6):
                s, letter = t.situation(random.Random(j))
                m = re.search(r"is still (\w+) of the (\w+)", s)
                if not m:
                    continue
                clause = re.search(rf"[^.]*still {m.group(1)} of the {m.group(2)}[^.]*", t.rule).group(0)
                named = re.search(r"(?i)\b(?:choose|pick|answer|take|select) ([A-F])\b", clause)
                if named:
                    self.assertEqual(named.group(1), letter, (t.rule, s))
                else:
                    self.assertIn(text[letter].lower(), clause.lower(), (t.rule, s))
                checked += 1
        self.assertGreater(checked, 500)
        self.assertGreater(by_letter, 0.35 * clauses_n)
        self.assertLess(by_letter, 0.65 * clauses_n)

    def test_binding_drill_other_thing_never_shares_the_direction(self):
        # the binding drill (stage 47 without its marks): two options, one other thing, always in the other direction word, so
        # reading either phrase at random scores 0.5, not 0.75
        from dataclasses import replace

        from train.nano.corpus.curriculum import stage
        from train.nano.corpus.tables import relational_table

        n = 0
        for k in range(100):
            t = relational_table(random.Random(k), replace(stage(47), marks=False))
            self.assertEqual(len(t.options), 2)
            dirs = [o.text.split()[-1] for o in t.options]
            for j in range(6):
                s, _ = t.situation(random.Random(j))
                found = [w for w in re.findall(r"[a-z]+", s.lower()) if w in dirs]
                if len(found) == 2:
                    n += 1
                    self.assertNotEqual(found[0], found[1], s)
        self.assertGreater(n, 400)


class ReplayTest(unittest.TestCase):
    def test_stage_draws(self):
        from train.nano.corpus.curriculum import name_of, stage
        from train.nano.stream import pick_stage

        def draws(*args, **kw):
            """The stages drawn (as their seeds, the numbers they had), stages given by seed."""
            stage_now, mix, *rest = args
            args = [name_of(stage_now), mix, *(name_of(x) for x in rest)]
            if kw.get("replay"):
                kw["replay"] = [name_of(x) for x in kw["replay"]]
            rng = random.Random("r")
            return [stage(pick_stage(rng, *args, **kw)).seed for _ in range(400)]

        # the recipe's expression before --replay-to / --replay existed (and stages had names)
        rng, old = random.Random("r"), []
        for _ in range(400):
            lo = min(9, 13)
            old.append(13 if 13 == lo or rng.random() >= 0.3 else rng.randrange(lo, 13))
        self.assertEqual(draws(13, 0.3, 9), old)
        self.assertEqual(set(draws(13, 0.3, 9)), {9, 10, 11, 12, 13})
        self.assertEqual(set(draws(15, 0.4, 9, 13)), {9, 10, 11, 12, 13, 15})
        self.assertEqual(set(draws(9, 0.3, 9, replay=(16, 15, 9))), {9, 15, 16})
        self.assertEqual(set(draws(9, 0.3, 9)), {9})
        # a range draws only the curriculum's stages (the removed ones' seeds are unused)
        self.assertEqual(set(draws(47, 1.0, 25)), {25, 26, 27, 30, 37})

    def test_bad_replay_list_is_a_usage_error(self):
        import contextlib
        import io

        from train.nano.train import parse

        for bad in ("a,b", "15,99", "chat-plateau,"):
            with self.assertRaises(SystemExit) as e, contextlib.redirect_stderr(io.StringIO()) as err:
                parse(["--run", "x", "--replay", bad])
            self.assertEqual(e.exception.code, 2)
            self.assertIn("--replay", err.getvalue())
        self.assertEqual(parse(["--run", "x", "--replay", "16,15"]).replay, "chat-plateau,easy-chat-words")
        self.assertEqual(
            parse(["--run", "x", "--replay", "chat-plateau,easy-chat-words"]).replay,
            "chat-plateau,easy-chat-words",
        )
        for bad in ("0", "two", "-1"):
            with self.assertRaises(SystemExit) as e, contextlib.redirect_stderr(io.StringIO()) as err:
                parse(["--run", "x", "--threads-later", "f", bad])
            self.assertEqual(e.exception.code, 2)
            self.assertIn("--threads-later", err.getvalue())
        self.assertEqual(parse(["--run", "x", "--threads-later", "f", "2"]).threads_later, ["f", "2"])
        self.assertIsNone(parse(["--run", "x", "--replay", ""]).replay)


class SignalTest(unittest.TestCase):
    def test_sigterm_saves_and_exits_nonzero(self):
        """A stopped run saves its checkpoint and exits 143, so the recipe's runner does
        not go on to its next stage (the scene branch once resumed stage 30 on a half-done stage 13)."""
        import signal
        import subprocess
        import time

        with tempfile.TemporaryDirectory() as d:
            cmd = [
                sys.executable,
                "-m",
                "train.nano.train",
                "--run",
                d,
                "--dim",
                "16",
                "--heads",
                "2",
                "--kv-heads",
                "1",
                "--ffn",
                "32",
                "--batch",
                "2",
                "--stage",
                "16",
                "--max-stage",
                "16",
                "--eval-every",
                "2",
                "--eval-tables",
                "2",
                "--steps",
                "1000000",
            ]
            p = subprocess.Popen(
                cmd,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                cwd=ROOT,
                env={**os.environ, "OMP_NUM_THREADS": "1"},
            )
            log = os.path.join(d, "log.jsonl")
            deadline = time.time() + 120
            while not (os.path.exists(log) and os.path.getsize(log) > 0) and time.time() < deadline:
                time.sleep(0.2)
            p.send_signal(signal.SIGTERM)
            out, _ = p.communicate(timeout=120)
            self.assertEqual(p.returncode, 128 + signal.SIGTERM, out)
            self.assertIn("stopped at step", out)
            self.assertGreater(torch.load(os.path.join(d, "ckpt.pt"))["step"], 0)


class ThreadsLaterTest(unittest.TestCase):
    """--threads-later FILE N: the run takes N threads at the first eval after FILE appears
    (so a word branch can take the scene branch's core once that finishes)."""

    def test_switches_once_the_file_exists(self):
        import contextlib
        import io

        from train.nano import train

        before = torch.get_num_threads()
        try:
            with tempfile.TemporaryDirectory() as d:
                small = [
                    "--dim",
                    "16",
                    "--heads",
                    "2",
                    "--kv-heads",
                    "1",
                    "--ffn",
                    "32",
                    "--batch",
                    "2",
                    "--eval-every",
                    "2",
                    "--eval-tables",
                    "2",
                    "--stage",
                    "16",
                    "--max-stage",
                    "16",
                ]
                flag = os.path.join(d, "scenes.done")
                out = io.StringIO()
                with contextlib.redirect_stdout(out):
                    train.main(["--run", f"{d}/r", "--steps", "2", "--threads-later", flag, "2"] + small)
                self.assertNotIn("exists", out.getvalue())
                self.assertEqual(torch.get_num_threads(), 1)
                open(flag, "w").close()
                with contextlib.redirect_stdout(out):
                    train.main(["--run", f"{d}/r", "--steps", "4", "--threads-later", flag, "2"] + small)
                self.assertIn(f"{flag} exists: 2 threads from step 4", out.getvalue())
                self.assertEqual(torch.get_num_threads(), 2)
        finally:
            torch.set_num_threads(before)


class DeviceTest(unittest.TestCase):
    """--device: a device this torch cannot reach is a usage error before any training, and a run
    on the default device saves CPU tensors (so a checkpoint moves between machines); --workers,
    for a GPU's faster step, trains on the same batches."""

    def test_unreachable_device_is_a_usage_error(self):
        import contextlib
        import io

        from train.nano import train

        with tempfile.TemporaryDirectory() as d:
            err = io.StringIO()
            with self.assertRaises(SystemExit) as e, contextlib.redirect_stderr(err):
                train.main(["--run", f"{d}/r", "--steps", "1", "--workers", "-1"])
            self.assertEqual(e.exception.code, 2)
            self.assertIn("--workers -1", err.getvalue())
        bad = ["bogus"] + ([] if torch.cuda.is_available() else ["cuda"])
        for device in bad:
            with tempfile.TemporaryDirectory() as d:
                err = io.StringIO()
                with self.assertRaises(SystemExit) as e, contextlib.redirect_stderr(err):
                    train.main(["--run", f"{d}/r", "--steps", "1", "--device", device])
                self.assertEqual(e.exception.code, 2)
                self.assertIn(
                    f"--device {device!r}" if device == "bogus" else "sees no CUDA device", err.getvalue()
                )
                self.assertFalse(os.path.exists(f"{d}/r"), "nothing is written before the error")

    def test_checkpoint_holds_cpu_tensors(self):
        import contextlib
        import io

        from train.nano import train

        with tempfile.TemporaryDirectory() as d:
            small = [
                "--dim",
                "16",
                "--heads",
                "2",
                "--kv-heads",
                "1",
                "--ffn",
                "32",
                "--batch",
                "2",
                "--eval-every",
                "2",
                "--eval-tables",
                "2",
            ]
            with contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(
                    train.main(["--run", f"{d}/r", "--steps", "2", "--device", "cpu"] + small), 0
                )
            st = torch.load(f"{d}/r/ckpt.pt", weights_only=False)
            self.assertEqual(st["args"]["device"], "cpu")
            tensors = [
                *st["model"].values(),
                *st["probes"].values(),
                *(v for s in st["opt"]["state"].values() for v in s.values() if torch.is_tensor(v)),
            ]
            self.assertTrue(tensors)
            self.assertTrue(all(t.device.type == "cpu" for t in tensors))

    def test_workers_train_on_the_inline_batches(self):
        """--workers packs ahead in processes: the same batches as inline, across promotions (a
        stage changes only at an eval) and a resume in the middle of a packed window."""
        import contextlib
        import io
        import json

        from train.nano import train

        small = [
            "--dim",
            "16",
            "--heads",
            "2",
            "--kv-heads",
            "1",
            "--ffn",
            "32",
            "--batch",
            "2",
            "--eval-every",
            "4",
            "--eval-tables",
            "2",
            "--promote",
            "0",
            "--max-stage",
            "2",
        ]
        with tempfile.TemporaryDirectory() as d:
            with contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(train.main(["--run", f"{d}/inline", "--steps", "12"] + small), 0)
                self.assertEqual(
                    train.main(["--run", f"{d}/ahead", "--steps", "6", "--workers", "2"] + small), 0
                )
                self.assertEqual(
                    train.main(["--run", f"{d}/ahead", "--steps", "12", "--workers", "2"] + small), 0
                )
            runs = [torch.load(f"{d}/{r}/ckpt.pt", weights_only=False) for r in ("inline", "ahead")]
            logs = [[json.loads(x) for x in open(f"{d}/{r}/log.jsonl")] for r in ("inline", "ahead")]
        self.assertEqual(
            [x["stage"] for x in logs[0]], ["compact-plateau", "compact-shuffled", "three-four-options"]
        )  # promoted at each eval
        self.assertEqual(
            [(x["stage"], x["eval_acc"]) for x in logs[0]], [(x["stage"], x["eval_acc"]) for x in logs[1]]
        )
        self.assertEqual(logs[0][-1]["loss"], logs[1][-1]["loss"])
        self.assertEqual(runs[0]["counters"], runs[1]["counters"])
        for k, v in runs[0]["model"].items():
            self.assertTrue(torch.equal(v, runs[1]["model"][k]), k)

    def test_workers_end_when_the_run_stops_mid_window(self):
        """A run that stops before its packed window is used up (time, a signal) still ends: its
        workers, blocked on full result pipes and forked with the trainer's SIGTERM handler, hung
        it once. A child process, so a hang fails here instead of stalling the suite."""
        import signal
        import subprocess
        import sys

        with tempfile.TemporaryDirectory() as d:
            cmd = [
                sys.executable,
                "-m",
                "train.nano.train",
                "--run",
                f"{d}/r",
                "--workers",
                "2",
                "--minutes",
                "0.05",
                "--steps",
                "100000",
                "--eval-every",
                "100000",
                "--eval-tables",
                "2",
                "--dim",
                "16",
                "--heads",
                "2",
                "--kv-heads",
                "1",
                "--ffn",
                "32",
                "--batch",
                "2",
            ]
            p = subprocess.Popen(
                cmd,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                start_new_session=True,
                cwd=ROOT,
            )
            try:
                out, err = p.communicate(timeout=120)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)  # the trainer and its workers
                p.communicate()
                self.fail("train.py --workers did not end after its time was up")
            self.assertEqual(p.returncode, 0, err[-2000:])
            self.assertIn("stopped at step", out)


class PathTest(unittest.TestCase):
    """--path walks listed stages in order, replays the path's earlier ones, and --stop-at-end
    ends a phase when its last stage reaches --promote (so a script can grow the model next)."""

    def test_path_order_and_replay(self):
        import contextlib
        import io

        from train.nano.stream import path_replay
        from train.nano.train import next_stage, parse, replay_note

        a = parse(
            ["--run", "x", "--path", "compact-plateau,compact-shuffled,chat-plateau", "--mix-prev", "0.2"]
        )
        self.assertEqual(
            [next_stage(a, s) for s in ("compact-plateau", "compact-shuffled", "chat-plateau")],
            ["compact-shuffled", "chat-plateau", None],
        )
        self.assertEqual(
            (path_replay(a, "compact-plateau"), path_replay(a, "chat-plateau")),
            (None, ["compact-plateau", "compact-shuffled"]),
        )
        self.assertIn("stages compact-plateau,compact-shuffled in 20%", replay_note(a, "chat-plateau"))
        self.assertEqual(parse(["--run", "x", "--path", "0,1,16"]).path, a.path)  # numbers: the stages' seeds
        b = parse(["--run", "x", "--replay-from", "16", "--replay-to", "1", "--mix-prev", "0.3"])
        self.assertIn("none", replay_note(b, "letter-first"))  # the trap of an early run: an empty range
        for bad in ("0,x", "0,99", "1,1", "1,compact-shuffled"):
            with self.assertRaises(SystemExit), contextlib.redirect_stderr(io.StringIO()):
                parse(["--run", "x", "--path", bad])
        self.assertIsNone(parse(["--run", "x", "--path", ""]).path)  # clears a resumed run's path
        from train.nano.diag import evaluate

        for bad in ("x", "99"):  # checked before any checkpoint is read
            with self.assertRaises(SystemExit) as e, contextlib.redirect_stderr(io.StringIO()):
                evaluate.main(["--ckpt", "/nonexistent.pt", "--stages", bad])
            self.assertEqual(e.exception.code, 2)

    def test_stop_at_end(self):
        import contextlib
        import io

        from train.nano import train

        with tempfile.TemporaryDirectory() as d:
            args = [
                "--run",
                d,
                "--dim",
                "16",
                "--heads",
                "2",
                "--kv-heads",
                "1",
                "--ffn",
                "32",
                "--batch",
                "2",
                "--path",
                "16,17",
                "--promote",
                "0",
                "--stop-at-end",
                "--eval-every",
                "2",
                "--eval-tables",
                "2",
                "--steps",
                "50",
            ]
            with contextlib.redirect_stdout(io.StringIO()) as out:
                self.assertEqual(train.main(args), 0)
            st = torch.load(os.path.join(d, "ckpt.pt"))
            self.assertEqual(
                (st["step"], st["stage"], st["at_end"]), (4, "chat-three-options", True), out.getvalue()
            )
            with contextlib.redirect_stdout(io.StringIO()) as out:
                self.assertEqual(train.main(args), 0)
            self.assertIn("already reached", out.getvalue())
            self.assertEqual(torch.load(os.path.join(d, "ckpt.pt"))["step"], 4)


class HeldOutTest(unittest.TestCase):
    def test_filter_flags_overlap(self):
        h = HeldOut(
            ["push in the same direction the car is moving, to pump energy like a swing", "go left now"]
        )
        self.assertIsNotNone(h.find("then Push in the SAME direction the car is here"))  # a 6-gram
        self.assertIsNotNone(h.find("you should go left now."))  # short sentence
        self.assertIsNone(h.find("push in the same way the car is moving"))

    def test_sample_is_clean(self):
        h = default_heldout()
        self.assertGreater(len(h.sentences), 0)
        for st in STAGES:
            for i in range(200):
                self.assertIsNone(h.find(example(7, st, i).text()))


class TokenizerTest(unittest.TestCase):
    def test_round_trip_any_utf8(self):
        tok = Tokenizer.load(VOCAB)
        for s in [
            "héllo wörld 世界 🙂‍🙂",
            "<|im_start|>user\nRule: x<|im_end|>",
            "\x00\x7f tabs\t\n\n  ",
            "Pole pole POLE",
        ]:
            self.assertEqual(tok.decode(tok.encode(s)), s)
        self.assertEqual(len(tok.tokens[:256]), 256)
        self.assertEqual(tok.encode("<|mask|>"), [tok.mask])
        for L in "ABCDEF":
            self.assertEqual(len(tok.encode(L)), 1)

    def test_folded_tokenizer(self):
        from train.nano.tokenizer.bpe import fold_case

        self.assertEqual(
            fold_case("Rule: Part means C. I go, AI ok, xY, B2, Ab\u00e9C"),
            "rule: part means C. I go, ai ok, xy, B2, ab\u00e9C",
        )
        tok = Tokenizer(Tokenizer.load(VOCAB).merges, fold=True)
        with tempfile.TemporaryDirectory() as d:
            tok.save(os.path.join(d, "v.json"))
            back = Tokenizer.load(os.path.join(d, "v.json"))
        self.assertTrue(back.fold)
        self.assertFalse(Tokenizer.load(VOCAB).fold)
        self.assertEqual(back.encode("Pole POLE pole"), back.encode("pole pole pole"))
        self.assertEqual(back.decode(back.encode("<|im_start|>User\nPick B.")), "<|im_start|>user\npick B.")
        for L in "ABCDEF":
            self.assertEqual(back.encode(L), Tokenizer.load(VOCAB).encode(L))
        # a run started folded resumes folded without --tokenizer (its checkpoint names it)
        import contextlib
        import io

        from train.nano import train

        with tempfile.TemporaryDirectory() as d:
            folded_path = os.path.join(ROOT, "train", "nano", "tokenizer", "vocab-folded.json")
            args = [
                "--run",
                d,
                "--dim",
                "16",
                "--heads",
                "2",
                "--kv-heads",
                "1",
                "--ffn",
                "32",
                "--batch",
                "2",
                "--stage",
                "13",
                "--max-stage",
                "13",
                "--eval-every",
                "2",
                "--eval-tables",
                "2",
                "--steps",
                "2",
            ]
            with contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(train.main(args + ["--tokenizer", folded_path]), 0)
            args[-1] = "4"
            with contextlib.redirect_stdout(io.StringIO()) as out:
                self.assertEqual(train.main(args), 0)
            self.assertIn("(case folded)", out.getvalue())
            self.assertEqual(torch.load(os.path.join(d, "ckpt.pt"))["tokenizer"], folded_path)
        # the committed folded vocabulary is the plain one with the fold on
        folded = Tokenizer.load(os.path.join(ROOT, "train", "nano", "tokenizer", "vocab-folded.json"))
        self.assertTrue(folded.fold)
        self.assertEqual(folded.merges, Tokenizer.load(VOCAB).merges)


class PackingTest(unittest.TestCase):
    def test_slot_targets_and_reveal(self):
        from train.nano.batching import Packer

        tok = Tokenizer.load(VOCAB)
        ex = example(2, 0, 4)
        b = Packer(tok).batch([ex], random.Random(0))
        ids = b["ids"][0]
        # every letter target sits on a <|mask|> and is read one row earlier (Dream shift)
        for r, ans in zip(b["letter_rows"].tolist(), b["letter_ans"].tolist()):
            p = int(b["t_pos"][r]) + 1
            self.assertEqual(int(ids[p]), tok.mask)
            self.assertEqual(int(b["t_tok"][r]), tok.encode("ABCDEF"[ans])[0])
            self.assertEqual(int(b["seg"][0, p]), int(b["seg"][0, p - 1]))
        self.assertEqual(len(b["letter_rows"]), len(ex.suffixes))
        # reveal: the answer is shown, so no letter is a target
        b = Packer(tok, reveal=1.0).batch([ex], random.Random(0))
        self.assertEqual(len(b["letter_rows"]), 0)


def _np_forward(r, ids, pos, seg):
    """Plain NumPy dream forward from the GGUF file; returns shifted logits [T, V]."""
    m = r.meta
    L = m["dream.block_count"]
    H, KV = m["dream.attention.head_count"], m["dream.attention.head_count_kv"]
    eps, theta = m["dream.attention.layer_norm_rms_epsilon"], m["dream.rope.freq_base"]
    t = r.tensor
    x = t("token_embd.weight")[ids]
    T, D = x.shape
    hd = D // H
    ok = np.array([[seg[j] == 0 or seg[j] == seg[i] for j in range(T)] for i in range(T)])

    def norm(v, w):
        return v / np.sqrt((v * v).mean(-1, keepdims=True) + eps) * w

    def rope(v):  # v [T, heads, hd], NeoX halves
        inv = theta ** (-np.arange(0, hd // 2) * 2.0 / hd)
        a = np.asarray(pos)[:, None, None] * inv
        v1, v2 = v[..., : hd // 2], v[..., hd // 2 :]
        return np.concatenate([v1 * np.cos(a) - v2 * np.sin(a), v2 * np.cos(a) + v1 * np.sin(a)], -1)

    for i in range(L):
        b = f"blk.{i}."
        h = norm(x, t(b + "attn_norm.weight"))
        q = (h @ t(b + "attn_q.weight").T + t(b + "attn_q.bias")).reshape(T, H, hd)
        k = (h @ t(b + "attn_k.weight").T + t(b + "attn_k.bias")).reshape(T, KV, hd)
        v = (h @ t(b + "attn_v.weight").T + t(b + "attn_v.bias")).reshape(T, KV, hd)
        q, k = rope(q), rope(k)
        y = np.zeros((T, H, hd))
        for hh in range(H):
            kh = hh // (H // KV)
            s = q[:, hh] @ k[:, kh].T / np.sqrt(hd)
            s = np.where(ok, s, -np.inf)
            p = np.exp(s - s.max(-1, keepdims=True))
            p /= p.sum(-1, keepdims=True)
            y[:, hh] = p @ v[:, kh]
        x = x + y.reshape(T, D) @ t(b + "attn_output.weight").T
        h = norm(x, t(b + "ffn_norm.weight"))
        g = h @ t(b + "ffn_gate.weight").T
        x = x + ((g / (1 + np.exp(-g))) * (h @ t(b + "ffn_up.weight").T)) @ t(b + "ffn_down.weight").T
    x = norm(x, t("output_norm.weight"))
    w = t("output.weight") if "output.weight" in r.tensors else t("token_embd.weight")
    z = x @ w.T
    return np.concatenate([z[:1], z[:-1]], 0)


class TargetRowsTest(unittest.TestCase):
    """hidden(..., targets=) runs the last layer only at the answer slots: the same states and
    gradients as reading them out of the full pass (train.py's fast path)."""

    def test_targets_equal_the_full_pass(self):
        from train.nano.batching import Packer
        from train.nano.model import Config, DreamModel

        torch.manual_seed(3)
        tok = Tokenizer.load(VOCAB)
        m = DreamModel(Config(vocab=len(tok), dim=32, layers=3, heads=4, kv_heads=2, ffn=64)).double()
        # tables of different lengths, so rows hold different numbers of targets and padding
        b = Packer(tok).batch([example(5, s, i) for i, s in enumerate([13, 0, 25, 9, 61])], random.Random(2))
        tg = (b["t_batch"], b["t_pos"])
        full_taps, taps = [], []
        full = m.hidden(b["ids"], b["pos"], b["seg"], full_taps)[tg]
        fast = m.hidden(b["ids"], b["pos"], b["seg"], taps, targets=tg)
        self.assertEqual(fast.shape, full.shape)
        self.assertLess((fast - full).abs().max().item(), 1e-10)
        self.assertEqual(len(taps), 2)  # every layer but the last
        for a, c in zip(taps, full_taps):
            self.assertTrue(torch.equal(a, c))
        g_full = torch.autograd.grad(m.head(full).logsumexp(-1).sum(), list(m.parameters()))
        g_fast = torch.autograd.grad(m.head(fast).logsumexp(-1).sum(), list(m.parameters()))
        for a, c in zip(g_full, g_fast):
            self.assertLess((a - c).abs().max().item(), 1e-9)
        with self.assertRaises(ValueError):  # the last layer's attention is not computed
            m.hidden(b["ids"], b["pos"], b["seg"], None, [], -1, targets=tg)

    def test_bench_rejects_an_unknown_path(self):
        import contextlib
        import io

        from train.nano.diag import bench_speed

        err = io.StringIO()
        with (
            self.assertRaises(SystemExit) as cm,
            contextlib.redirect_stderr(err),
            contextlib.redirect_stdout(io.StringIO()),
        ):
            bench_speed.main(["--paths", "full,fast", "--steps", "1", "--sizes", "16x1", "--heap", "default"])
        self.assertEqual(cm.exception.code, 2)
        self.assertIn("--paths 'full,fast'", err.getvalue())

    def test_bench_times_the_batches_it_saved(self):
        """--save-batches then --load-batches (how a lent GPU without the word lists is timed): the
        loaded run reports the saved stage, batch size and corpus cost, and times every batch."""
        import contextlib
        import io

        from train.nano.diag import bench_speed

        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "b.pt")
            with contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(
                    bench_speed.main(
                        ["--stage", "0", "--batch", "2", "--steps", "1", "--save-batches", path]
                    ),
                    0,
                )
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                self.assertEqual(
                    bench_speed.main(
                        ["--load-batches", path, "--sizes", "16x1", "--paths", "targets", "--heap", "default"]
                    ),
                    0,
                )
        lines = out.getvalue().splitlines()
        self.assertTrue(lines[0].startswith("stage 0, batch 2 tables"), lines[0])
        self.assertIn("device cpu", lines[0])
        self.assertEqual(len(lines), 2)
        self.assertIn("d=  16 layers=1", lines[1])


class GrowTest(unittest.TestCase):
    """A grown checkpoint keeps what the old model computed, so a learned circuit survives."""

    def _logp(self, st, b):
        from train.nano.model import Config, DreamModel

        m = DreamModel(Config(**st["config"]))
        m.load_state_dict(st["model"])
        m.double()  # so "exact" means exact, not float32 rounding of large logits
        with torch.no_grad():
            return m.head(m.hidden(b["ids"], b["pos"], b["seg"])[b["t_batch"], b["t_pos"]]).log_softmax(-1)

    def test_widen_and_deepen(self):
        from train.nano import grow
        from train.nano.batching import Packer
        from train.nano.model import Config, DreamModel

        torch.manual_seed(1)
        cfg = Config(vocab=len(Tokenizer.load(VOCAB)), dim=32, layers=2, heads=2, kv_heads=1, ffn=96)
        m = DreamModel(cfg)
        for p in m.parameters():  # away from the init, so the check is not about init scales
            p.data += 0.05 * torch.randn_like(p)
        st = {"model": m.state_dict(), "config": cfg.to_dict(), "seed": 3, "step": 7}
        b = Packer(Tokenizer.load(VOCAB)).batch([example(0, 13, i) for i in range(4)], random.Random(0))
        ref = self._logp(st, b)
        exact = grow.widen(st, 2, new_scale=0.0)  # the old weights are copied and renormalised right
        # (not 0: RMSNorm's eps does not scale with the width)
        self.assertLess((self._logp(exact, b) - ref).abs().max().item(), 1e-3)
        wide = grow.widen(st, 2)
        self.assertEqual(
            (
                wide["config"]["dim"],
                wide["config"]["heads"],
                wide["config"]["kv_heads"],
                wide["config"]["ffn"],
            ),
            (64, 4, 2, 192),
        )
        self.assertEqual(wide["step"], 7)
        got = self._logp(wide, b)
        self.assertLess((got - ref).abs().mean().item(), 0.1)
        with tempfile.TemporaryDirectory() as d:
            src, out = os.path.join(d, "a.pt"), os.path.join(d, "b.pt")
            torch.save(st, src)
            self.assertEqual(grow.main(["--ckpt", src, "--out", out]), 0)
            deep = torch.load(out)
        self.assertEqual(deep["config"]["layers"], 3)
        self.assertLess((self._logp(deep, b) - ref).abs().max().item(), 1e-5)
        self.assertLess((self._logp(grow.deepen(st, 0), b) - ref).abs().max().item(), 1e-5)  # in front too
        with self.assertRaises(SystemExit) as e:
            grow.deepen(st, 3)
        self.assertIn("0..2", str(e.exception))


class StitchTest(unittest.TestCase):
    """A stitched model computes the sum of its two halves' logits: exactly when the halves'
    streams have equal rms, and closer with the rms plan than without it otherwise."""

    def _model(self, seed, dim, heads, kv, ffn, scale):
        from train.nano.model import Config, DreamModel

        torch.manual_seed(seed)
        m = DreamModel(
            Config(vocab=len(Tokenizer.load(VOCAB)), dim=dim, layers=2, heads=heads, kv_heads=kv, ffn=ffn)
        )
        with torch.no_grad():
            for p in m.parameters():
                p += 0.05 * torch.randn_like(p)
            m.embed.weight *= scale  # streams of different size, as two separately trained models have
        return m.double().eval()

    def _logits(self, st, b):
        from train.nano.model import Config, DreamModel

        m = DreamModel(Config(**st["config"]))
        m.load_state_dict(st["model"])
        with torch.no_grad():
            return m.double().head(m.hidden(b["ids"], b["pos"], b["seg"]))

    def test_stitch(self):
        from train.nano import stitch
        from train.nano.batching import Packer

        a, b_ = self._model(1, 32, 4, 2, 64, 1.0), self._model(2, 48, 6, 3, 96, 3.0)
        sa = {"model": a.state_dict(), "config": a.c.to_dict(), "seed": 0, "step": 1}
        sb = {"model": b_.state_dict(), "config": b_.c.to_dict(), "seed": 0, "step": 9, "stage": 4}
        batch = Packer(Tokenizer.load(VOCAB)).batch([example(0, 13, i) for i in range(4)], random.Random(0))
        with torch.no_grad():
            za, zb = (m.head(m.hidden(batch["ids"], batch["pos"], batch["seg"])) for m in (a, b_))
        self_st = stitch.stitch(sa, sa)  # equal halves: equal rms, so the sum is exact
        self.assertLess((self._logits(self_st, batch) - 2 * za).abs().max().item(), 1e-6)
        from train.nano.grow import deepen  # a deeper B: A gets blocks that compute nothing, still exact

        deep = stitch.stitch(sa, deepen(deepen(sa)))  # (blocks appended, as stitch appends them)
        self.assertEqual(deep["config"]["layers"], 4)
        self.assertLess((self._logits(deep, batch) - 2 * za).abs().max().item(), 1e-6)
        plain = stitch.stitch(sa, sb)
        self.assertEqual(
            (plain["config"]["dim"], plain["config"]["heads"], plain["config"]["kv_heads"]), (80, 10, 5)
        )
        self.assertEqual(plain["step"], 9)
        self.assertGreater((self._logits(plain, batch) - (za + zb)).abs().mean().item(), 0.1)  # rms coupling
        # A2 = A with its stream twice as large (same function): the plan scales it back, exactly
        sd2 = {k: v * 2 if k.split(".")[-2] in ("embed", "o", "down") else v for k, v in sa["model"].items()}
        sd2["norm.weight"] = sd2["norm.weight"] / 2
        sa2 = {**sa, "model": sd2}
        a2 = self._model(1, 32, 4, 2, 64, 1.0)
        a2.load_state_dict(sd2)
        c, gains = stitch.plan(stitch.stream_rms(a2, batch), stitch.stream_rms(a, batch), 32, 32)
        self.assertAlmostEqual(c, 0.5, places=5)
        self.assertLess(
            (self._logits(stitch.stitch(sa2, sa, c, gains), batch) - 2 * za).abs().max().item(), 1e-5
        )
        wrong = {**sb, "config": {**sb["config"], "heads": 3}}  # 1 query head per KV head, A has 2
        with self.assertRaises(SystemExit):
            stitch.stitch(sa, wrong)
        with self.assertRaises(SystemExit) as e:
            stitch.main(["--a", "/nonexistent/a.pt", "--b", "/nonexistent/b.pt", "--out", "/tmp/never.pt"])
        self.assertIn("no checkpoint", str(e.exception))


class JoinedCardTest(unittest.TestCase):
    """stitch.py records both branches, train.py keeps the record through the joint fine-tune,
    and the model card reports each branch's shape, steps, time and tables apart."""

    def test_branches_reach_the_card(self):
        import contextlib
        import io
        import json

        from train.nano import model_card, stitch, train

        with tempfile.TemporaryDirectory() as d:
            small = [
                "--dim",
                "16",
                "--heads",
                "2",
                "--kv-heads",
                "1",
                "--ffn",
                "32",
                "--batch",
                "2",
                "--eval-every",
                "2",
                "--eval-tables",
                "2",
            ]
            with contextlib.redirect_stdout(io.StringIO()):
                train.main(["--run", f"{d}/a", "--stage", "9", "--max-stage", "9", "--steps", "2"] + small)
                train.main(
                    ["--run", f"{d}/b", "--layers", "3", "--stage", "16", "--max-stage", "16", "--steps", "3"]
                    + small
                )
                stitch.main(["--a", f"{d}/a/ckpt.pt", "--b", f"{d}/b/ckpt.pt", "--out", f"{d}/j/ckpt.pt"])
                train.main(
                    [
                        "--run",
                        f"{d}/j",
                        "--set-stage",
                        "13",
                        "--max-stage",
                        "13",
                        "--steps",
                        "5",
                        "--eval-every",
                        "2",
                        "--eval-tables",
                        "2",
                    ]
                )
            st = torch.load(f"{d}/j/ckpt.pt", weights_only=False)
            self.assertEqual(st["step"], 5)
            pa, pb = st["parents"]["a"], st["parents"]["b"]
            self.assertEqual(
                (pa["step"], pa["config"]["layers"], pb["step"], pb["config"]["layers"]), (2, 2, 3, 3)
            )
            self.assertEqual(st["config"]["dim"], 32)
            row = {
                "name": "exam: cartpole",
                "n": 1,
                "accuracy": 1.0,
                "misses": 0,
                "target_kind": "max_misses",
                "target": 0,
                "pass": True,
            }
            t = {
                "cached": {"p50_ms": 1, "p95_ms": 1},
                "uncached": {"p50_ms": 2, "p95_ms": 2},
                "first_with_prefix_ms": 3,
            }
            files = {
                "eval.json": {"rows": [row], "info": {"stage": 13, "tables": 1, "seconds": 1}},
                "bench.json": {
                    "threads": 2,
                    "machine": "m",
                    "decisions_per_task": 1,
                    "tasks": {"cartpole": t},
                },
            }
            for name, v in files.items():
                with open(f"{d}/{name}", "w") as f:
                    json.dump(v, f)
            with open(f"{d}/plays.txt", "w") as f:
                f.write("cartpole: PASS balanced\n")
            gguf = f"{d}/m.gguf"
            open(gguf, "wb").write(b"x" * 10)
            with contextlib.redirect_stdout(io.StringIO()):
                model_card.main(
                    [
                        "--ckpt",
                        f"{d}/j/ckpt.pt",
                        "--gguf",
                        gguf,
                        "--eval",
                        f"{d}/eval.json",
                        "--bench",
                        f"{d}/bench.json",
                        "--plays",
                        f"{d}/plays.txt",
                        "--out",
                        f"{d}/card.md",
                        "--targets",
                        f"{d}/t.json",
                    ]
                )
            card = open(f"{d}/card.md").read()
            self.assertIn("Scene branch (phase `scenes`): 16 x 2, 2 steps", card)
            self.assertIn("Word branch (phase `words`): 16 x 3, 3 steps", card)
            self.assertIn("Joint fine-tune (phase `joint`): 2 steps", card)
            # the joint's precision and threads come from its checkpoint (float32, one thread here)
            self.assertIn("the joint fine-tune on one CPU thread, float32", card)
            self.assertIn(
                "The scene branch on one CPU thread, float32; the word branch on one CPU thread, float32",
                card,
            )
            # a word branch in bf16 that takes a second thread once the scene branch is done
            self.assertEqual(
                model_card._how({"threads": 1, "bf16": True, "threads_later": ["r/scenes.done", "2"]}),
                "one CPU thread, 2 CPU threads once `scenes.done` existed, bfloat16 autocast",
            )
            import re

            joint = re.search(r"joint fine-tune: ([^.]*)\.", card).group(1)
            self.assertEqual(sum(int(n) for n in re.findall(r"stage \d+: (\d+) tables", joint)), 2 * 2, joint)
            self.assertIn(f"stage 16: {pb['counters']['chat-plateau']} tables; joint fine-tune: ", card)
            self.assertNotIn("Soup", card)

            # a soup: two fine-tunes of j, averaged with it (train/nano/average.py)
            import shutil

            from train.nano import average

            for k in (1, 2):
                shutil.copytree(f"{d}/j", f"{d}/j{k}")
                with contextlib.redirect_stdout(io.StringIO()):
                    train.main(
                        [
                            "--run",
                            f"{d}/j{k}",
                            "--set-stage",
                            "61",
                            "--max-stage",
                            "61",
                            "--steps",
                            str(5 + k),
                            "--eval-every",
                            "2",
                            "--eval-tables",
                            "2",
                        ]
                    )
            with contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(
                    average.main_args(
                        ["--out", f"{d}/soup.pt", f"{d}/j/ckpt.pt", f"{d}/j1/ckpt.pt", f"{d}/j2/ckpt.pt"]
                    ),
                    0,
                )
            soup = torch.load(f"{d}/soup.pt", weights_only=False)
            parts = [torch.load(f"{d}/{r}/ckpt.pt", weights_only=False) for r in ("j", "j1", "j2")]
            for name, w in soup["model"].items():
                torch.testing.assert_close(w, sum(p["model"][name] for p in parts) / 3)
            self.assertEqual(soup["step"], 5)
            self.assertEqual([b["steps"] for b in soup["soup"]["branches"]], [1, 2])
            self.assertEqual(
                sum(soup["counters"].values()), sum(parts[0]["counters"].values()) + 2 * 1 + 2 * 2
            )  # batch 2 tables a step
            with contextlib.redirect_stdout(io.StringIO()):
                model_card.main(
                    [
                        "--ckpt",
                        f"{d}/soup.pt",
                        "--gguf",
                        gguf,
                        "--eval",
                        f"{d}/eval.json",
                        "--bench",
                        f"{d}/bench.json",
                        "--plays",
                        f"{d}/plays.txt",
                        "--out",
                        f"{d}/card.md",
                        "--targets",
                        f"{d}/t.json",
                    ]
                )
            self.assertIn(
                "Soup: 2 fine-tunes of the joint's last step (stage final-mix, 1 steps, stage final-mix, 2 steps)",
                open(f"{d}/card.md").read(),
            )
            # different architectures are an error, not a partial mean
            with contextlib.redirect_stderr(io.StringIO()) as err:
                self.assertEqual(
                    average.main_args(["--out", f"{d}/bad.pt", f"{d}/j/ckpt.pt", f"{d}/a/ckpt.pt"]), 2
                )
            self.assertIn("differ in architecture", err.getvalue())
            self.assertFalse(os.path.exists(f"{d}/bad.pt"))


class SpreadUnreadTest(unittest.TestCase):
    """spread_unread.py: the embeddings of tokens no training text holds take the read tokens'
    mean and spread; every other weight, and every read token, stays as it was."""

    def test_spread_math(self):
        from train.nano.spread_unread import spread

        g = torch.Generator().manual_seed(0)
        e = torch.randn(40, 8, generator=g)
        e[20:] = e[20:] * 0.1 + 3.0  # a collapsed cluster far from the rest
        out = spread(e, list(range(20, 40)), list(range(20)))
        self.assertTrue(torch.equal(out[:20], e[:20]))
        self.assertTrue(torch.allclose(out[20:].mean(0), e[:20].mean(0), atol=1e-5))
        spread_of = lambda x: (x - x.mean(0)).norm(dim=1).mean()  # noqa: E731
        self.assertAlmostEqual(float(spread_of(out[20:])), float(spread_of(e[:20])), places=4)
        # relative directions inside the moved set are kept (an affine map of it)
        c_in = torch.corrcoef(e[20:] - e[20:].mean(0))
        c_out = torch.corrcoef(out[20:] - out[20:].mean(0))
        self.assertTrue(torch.allclose(c_in, c_out, atol=1e-4))

    def test_checkpoint_in_and_out(self):
        import contextlib
        import io

        from train.nano import spread_unread, train

        with tempfile.TemporaryDirectory() as d:
            args = [
                "--run",
                f"{d}/r",
                "--dim",
                "16",
                "--heads",
                "2",
                "--kv-heads",
                "1",
                "--ffn",
                "32",
                "--batch",
                "2",
                "--stage",
                "16",
                "--max-stage",
                "16",
                "--eval-every",
                "2",
                "--eval-tables",
                "2",
                "--steps",
                "2",
            ]
            with contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(train.main(args), 0)
                self.assertEqual(
                    spread_unread.main(
                        ["--ckpt", f"{d}/r/ckpt.pt", "--out", f"{d}/s/ckpt.pt", "--per-stage", "30"]
                    ),
                    0,
                )
            a, b = torch.load(f"{d}/r/ckpt.pt"), torch.load(f"{d}/s/ckpt.pt")
            tok = Tokenizer.load(a["tokenizer"])
            counts = spread_unread.read_counts(tok, [16], 30)
            ea, eb = a["model"]["embed.weight"], b["model"]["embed.weight"]
            moved = [t for t in range(len(tok)) if not torch.equal(ea[t], eb[t])]
            self.assertEqual(len(moved), b["spread"]["unread"])
            self.assertGreater(len(moved), 100)  # stage 16 alone reads few of the 4,096 tokens
            self.assertTrue(all(counts[t] == 0 and 256 <= t < tok.mask - 3 for t in moved))
            self.assertTrue(
                all(torch.equal(v, b["model"][k]) for k, v in a["model"].items() if k != "embed.weight")
            )
            self.assertIsNone(b["opt"])
            # bad input: exit 2 with the reason, never a second spread of a spread model
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                self.assertEqual(spread_unread.main(["--ckpt", f"{d}/s/ckpt.pt", "--out", f"{d}/t.pt"]), 2)
                self.assertEqual(spread_unread.main(["--ckpt", f"{d}/none.pt", "--out", f"{d}/t.pt"]), 2)
                self.assertEqual(
                    spread_unread.main(
                        ["--ckpt", f"{d}/r/ckpt.pt", "--out", f"{d}/t.pt", "--per-stage", "0"]
                    ),
                    2,
                )
                with open(f"{d}/cut.pt", "wb") as f:  # a truncated checkpoint
                    f.write(open(f"{d}/r/ckpt.pt", "rb").read()[:1000])
                self.assertEqual(spread_unread.main(["--ckpt", f"{d}/cut.pt", "--out", f"{d}/t.pt"]), 2)
            self.assertIn("already spread", err.getvalue())
            self.assertIn("cannot read", err.getvalue())
            self.assertFalse(os.path.exists(f"{d}/t.pt"))
            self.assertEqual((b["spread"]["step"], b["spread"]["elapsed_s"]), (2, a["elapsed_s"]))
            # training on after the spread (the polish) keeps its record: the card tells the
            # polish apart, and a second spread is still refused
            with contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(
                    train.main(
                        ["--run", f"{d}/s", "--steps", "3", "--eval-every", "2", "--eval-tables", "2"]
                    ),
                    0,
                )
            c = torch.load(f"{d}/s/ckpt.pt")
            self.assertEqual((c["step"], c["spread"]), (3, b["spread"]))
            with contextlib.redirect_stderr(io.StringIO()) as err2:
                self.assertEqual(spread_unread.main(["--ckpt", f"{d}/s/ckpt.pt", "--out", f"{d}/t.pt"]), 2)
            self.assertIn("already spread", err2.getvalue())


class ReadSoftmaxTest(unittest.TestCase):
    def test_unread_tokens_get_no_gradient(self):
        """--read-softmax: an embedding row no text of the batch holds gets no gradient at all
        (with the full softmax every row does: the push that collapses unread tokens)."""
        import contextlib
        import io

        from train.nano import train
        from train.nano.batching import Packer
        from train.nano.model import Config, DreamModel

        tok = Tokenizer.load(VOCAB)
        torch.manual_seed(0)
        m = DreamModel(Config(vocab=len(tok), dim=16, layers=1, heads=2, kv_heads=1, ffn=32))
        pk = Packer(tok)
        b = pk.batch([example(0, 25, i) for i in range(3)], random.Random(0))
        keep = train.read_tokens(b, tok, pk.letter_ids)
        self.assertTrue(keep[pk.letter_ids].all() and keep[tok.mask] and keep[tok.eot])
        self.assertGreater(int((~keep).sum()), 3000)
        for restrict in (False, True):
            m.zero_grad()
            z = m.head(m.hidden(b["ids"], b["pos"], b["seg"])[b["t_batch"], b["t_pos"]])
            if restrict:
                z = z.masked_fill(~keep, float("-inf"))
            torch.nn.functional.cross_entropy(z, b["t_tok"]).backward()
            g = m.embed.weight.grad[~keep].abs().sum().item()
            self.assertEqual(g == 0.0, restrict, g)
        with tempfile.TemporaryDirectory() as d, contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(
                train.main(
                    [
                        "--run",
                        d,
                        "--dim",
                        "16",
                        "--heads",
                        "2",
                        "--kv-heads",
                        "1",
                        "--ffn",
                        "32",
                        "--batch",
                        "2",
                        "--stage",
                        "25",
                        "--max-stage",
                        "25",
                        "--eval-every",
                        "2",
                        "--eval-tables",
                        "2",
                        "--steps",
                        "2",
                        "--read-softmax",
                    ]
                ),
                0,
            )
            self.assertTrue(torch.load(os.path.join(d, "ckpt.pt"))["args"]["read_softmax"])


class ExportTest(unittest.TestCase):
    def test_gguf_matches_torch_and_packing_equals_cache(self):
        from tools.gguf_py import gguf_file as gf
        from train.nano.batching import Packer
        from train.nano.export_gguf import export
        from train.nano.model import Config, DreamModel

        tok = Tokenizer.load(VOCAB)
        torch.manual_seed(0)
        for tied in (True, False):
            c = Config(vocab=len(tok), dim=32, layers=2, heads=4, kv_heads=2, ffn=64, tied=tied)
            m = DreamModel(c)
            with torch.no_grad():  # non-trivial norms and biases
                for n, p in m.named_parameters():
                    if "norm" in n or "bias" in n:
                        p.add_(torch.randn_like(p) * 0.3)
            ex = example(5, 4, 3)
            b = Packer(tok).batch([ex], random.Random(0))
            ids, pos, seg = b["ids"], b["pos"], b["seg"]
            with torch.no_grad():
                zt = m.logits(ids, pos, seg)[0].numpy()
            with tempfile.TemporaryDirectory() as d:
                path = os.path.join(d, "m.gguf")
                export(m.state_dict(), c, tok, path)
                r = gf.Reader(path)
                self.assertEqual(r.meta["general.architecture"], "dream")
                self.assertEqual(r.meta["tokenizer.ggml.mask_token_id"], tok.mask)
                self.assertTrue(r.meta["diffusion.shift_logits"])
                self.assertEqual("output.weight" in r.tensors, not tied)
                zn = _np_forward(r, ids[0].numpy(), pos[0].numpy(), seg[0].numpy())
            self.assertLess(np.abs(zn - zt).max() / (np.abs(zn).max() + 1e-9), 1e-4)
            # packed row == prefix + one situation alone, for every situation (prefix-cache
            # semantics). Compared unshifted: a packed row's shift crosses situation boundaries,
            # which is why no training target sits on a situation's first token.
            with torch.no_grad():
                zu = m.head(m.hidden(ids, pos, seg))[0].numpy()
            s_ = seg[0]
            P = int((s_ == 0).sum())
            for s in range(1, int(s_.max()) + 1):
                keep = (s_ == 0) | (s_ == s)
                with torch.no_grad():
                    alone = m.head(m.hidden(ids[:, keep], pos[:, keep], seg[:, keep]))[0].numpy()
                np.testing.assert_allclose(alone, zu[keep.numpy()], rtol=1e-4, atol=1e-5)
                self.assertEqual(int(pos[0, keep][P]), P)


if __name__ == "__main__":
    unittest.main()
