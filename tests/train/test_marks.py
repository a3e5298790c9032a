"""Evidence marks (train/nano/corpus/marks.py): marked stages read the same text as unmarked ones,
and the packer turns the marks into per-token probe labels on exactly the marked words."""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import tempfile
import unittest
from dataclasses import replace

import torch

from tests.train.helpers import TINY_MODEL, VOCAB, tiny_run
from train.nano.batching import Packer
from train.nano.corpus import marks
from train.nano.corpus.curriculum import stage
from train.nano.corpus.generate import draw_table, example, make_example
from train.nano.tokenizer.bpe import Tokenizer, fold_case


def drill(i: int):
    """-> (example i of the clause-marked lookup drill, stage 53; its table: example()'s first draws)."""
    return example(0, 53, i), draw_table(random.Random(f"0:53:{i}"), stage(53))[0]


class MarksTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tok = Tokenizer.load(VOCAB)
        cls.pk = Packer(cls.tok)

    def test_spans_in_bytes(self):
        text, spans = marks.spans("the " + marks.noun("café") + " moves " + marks.direction("left"))
        self.assertEqual(text, "the café moves left")
        b = text.encode()
        self.assertEqual(
            [(b[s:e].decode(), k) for s, e, k in spans], [("café", marks.NOUN), ("left", marks.DIRECTION)]
        )
        for bad in ("\ue000car", "car\ue001", "\ue002car\ue001"):
            with self.assertRaises(ValueError):
                marks.spans(bad)

    def test_marked_stage_reads_the_unmarked_text(self):
        # stages 47 and 51 are unmarked stages plus marks: the same draws give the same text once stripped
        for marked in (47, 51):
            plain = replace(stage(marked), marks=False, scene_marks=False)
            n_marked = 0
            for i in range(60):
                a = make_example(random.Random(i), stage(marked))
                b = make_example(random.Random(i), plain)
                n_marked += any(marks.has_marks(s) for s in a.suffixes)
                self.assertFalse(marks.has_marks(a.text()))
                self.assertEqual(a.prefix, b.prefix)
                self.assertEqual([marks.strip(s) for s in a.suffixes], b.suffixes)
            self.assertGreater(n_marked, 55 if marked == 47 else 2, marked)

    def test_clause_marked_stage_reads_the_unmarked_text(self):
        # stages 53 and 61 are unmarked stages plus clause marks in the rule; clause_conditions
        # (the removed stages 54-55) marks the clauses' conditions too
        drill, mix = stage(53), replace(stage(51), clause_marks=True)
        cases = (
            (drill, replace(drill, clause_marks=False), 59),
            (stage(61), replace(stage(61), clause_marks=False), 30),
            (replace(drill, clause_conditions=True), replace(drill, clause_marks=False), 59),
            (replace(mix, clause_conditions=True), stage(51), 30),
        )
        for marked, plain, least in cases:
            n_marked = 0
            for i in range(60):
                a = make_example(random.Random(i), marked)
                b = make_example(random.Random(i), plain)
                n_marked += marks.has_marks(a.prefix)
                self.assertFalse(marks.has_marks(a.text()))
                self.assertEqual(marks.strip(a.prefix), b.prefix)
                self.assertEqual([marks.strip(x) for x in a.suffixes], [marks.strip(x) for x in b.suffixes])
            self.assertGreater(n_marked, least, marked)

    def test_packer_labels_clauses_with_the_named_letter(self):
        tok, pk, checked = self.tok, self.pk, 0
        for i in range(30):
            ex, table = drill(i)
            self.assertIn(table.rule, ex.prefix)
            text, spans = marks.spans(table.rule)
            options = {o.letter: o.text for o in table.options}
            named = {}
            for a, b, k in spans:
                named.setdefault("ABCDEF"[k - marks.CLAUSE], []).append(text.encode()[a:b].decode().lower())
            for letter, got in named.items():
                # a clause marks the option it names: the letter itself or that option's text
                # (capitalised at a clause's start)
                self.assertLessEqual(
                    set(got), {letter.lower(), options[letter].lower()}, (letter, got, table.rule)
                )
                checked += 1
            batch = pk.batch([ex], random.Random(0))
            ids = batch["ids"][0].tolist()
            lab = batch["aux_clause"][0].tolist()
            got = {}
            for t, li in zip(ids, lab):
                if li >= 0:
                    got.setdefault("ABCDEF"[li], []).append(t)
            want = {"ABCDEF"[k - marks.CLAUSE] for _, _, k in spans}
            self.assertEqual(set(got), want)
            for letter, toks in got.items():
                self.assertTrue(
                    any(
                        letter.lower() in tok.decode([t]).lower()
                        or any(w in tok.decode(toks).lower() for w in options[letter].lower().split())
                        for t in toks
                    )
                )
            self.assertEqual(batch["aux_m"][0].sum().item(), 0)  # prefix labels never feed the suffix probes
        self.assertGreater(checked, 59)  # two still clauses per drill table

    def test_clause_answered_situations_point_at_their_clause(self):
        tok, pk, n = self.tok, self.pk, 0
        for i in range(20):
            ex, table = drill(i)
            b = pk.batch([ex], random.Random(0))
            ids = b["ids"][0].tolist()
            # the answer of a still situation is read after its last token, and it points at
            # the option that its clause names (by text, or by letter)
            texts = {o.letter: o.text.lower() for o in table.options}
            for r, m, li in zip(b["point_row"].tolist(), b["point_mask"], b["point_letter"].tolist()):
                self.assertEqual(tok.decode(ids[r - 2 : r + 1]), "<|im_start|>assistant\n")
                named = tok.decode([t for t, x in zip(ids, m.tolist()) if x]).strip().lower()
                self.assertIn(texts["ABCDEF"[li]], named)
                n += 1
            self.assertEqual(b["aux_m"].sum().item(), 0)  # the whole-situation mark is no evidence label
        self.assertGreater(n, 60)
        b = pk.batch([example(0, 51, 0)], random.Random(0))
        self.assertEqual(len(b["point_b"]), 0)  # no clause marks, no pointers

    def test_match_table_situations_mark_condition_words(self):
        # match_marks (the removed stages 57 / 58): a situation word of a condition carries that
        # option's letter (2: any condition, partial matches too; 1: the answering one only);
        # unmarked stage 25 reads the same
        from train.nano.corpus.tables import match_table

        def marked(level):
            return replace(stage(25), clause_marks=True, clause_conditions=True, match_marks=level)

        partial = 0
        for level in (2, 1):
            for i in range(80):
                table = match_table(random.Random(i), marked(level))
                plain = match_table(random.Random(i), stage(25))
                self.assertEqual(marks.strip(table.rule), plain.rule)
                conds = {w.lower(): o.letter for o in table.options for c in o.conds for w in c}
                for k in range(4):
                    s, ans = table.situation(random.Random(k))
                    self.assertEqual((marks.strip(s), ans), plain.situation(random.Random(k)))
                    text, spans = marks.spans(s)
                    for a, b, kind in spans:
                        word, letter = text.encode()[a:b].decode().lower(), "ABCDEF"[kind - marks.CLAUSE]
                        self.assertEqual(conds[word], letter, s)
                        partial += letter != ans
                        if level == 1:
                            self.assertEqual(letter, ans, s)
        self.assertGreater(partial, 20)  # level 2 marks partial matches' words with their own letter
        # the packer puts them in the clause probe's labels, but never in the pointer's targets
        b = self.pk.batch([make_example(random.Random("0:57:0"), marked(2))], random.Random(0))
        in_situations = (b["aux_clause"] >= 0) & (b["seg"] > 0)
        self.assertGreater(in_situations.sum().item(), 5)
        self.assertEqual(len(b["point_b"]), 0)
        # the situations' other tokens are negatives for the binding probes (no subject, no direction)
        self.assertEqual(b["aux_lab"].sum().item(), 0)

    def test_packer_labels_the_marked_words(self):
        plain = Tokenizer.load(VOCAB)
        for tok in (plain, Tokenizer(plain.merges, fold=True)):  # the fold keeps byte spans
            pk = Packer(tok)
            checked = 0
            for i in range(20):
                ex = example(0, 47, i)
                for s in ex.suffixes:
                    ids, labels = pk.marked(s)
                    text, spans = marks.spans(s)
                    self.assertEqual(ids, tok.encode(text))
                    for k in range(marks.KINDS):
                        got = tok.decode([t for t, kinds in zip(ids, labels) if k in kinds]).split()
                        want = [text.encode()[a:b].decode() for a, b, kk in spans if kk == k]
                        self.assertEqual(got, [fold_case(w) if tok.fold else w for w in want], s)
                        checked += len(want)
            self.assertGreater(checked, 300)
        tok, pk = plain, Packer(plain)
        b = pk.batch([example(0, 47, 0), example(0, 13, 0)], random.Random(0))
        self.assertGreater(b["aux_m"][0].sum().item(), 0)
        self.assertEqual(b["aux_m"][1].sum().item(), 0)  # unmarked tables carry no probe labels
        self.assertTrue(torch.all(b["aux_lab"].sum(-1) <= b["aux_m"] * marks.KINDS))

    def test_train_with_probes_and_resume(self):
        from train.nano import train

        with tempfile.TemporaryDirectory() as d:
            args = tiny_run(d, "--aux-binding", "1", "--aux-letter", "1", stage=47, steps=4)
            with contextlib.redirect_stdout(io.StringIO()) as out:
                self.assertEqual(train.main(args), 0)
            recs = [json.loads(x) for x in out.getvalue().splitlines() if x.startswith("{")]
            self.assertTrue(all("aux0" in r and "aux1" in r and "aux2" in r for r in recs), out.getvalue())
            st = torch.load(os.path.join(d, "ckpt.pt"))
            self.assertIn("probes", st)
            self.assertFalse(any(k.startswith("probes") for k in st["model"]))  # never exported
            args[-1] = "6"
            with contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(train.main(args), 0)
            self.assertEqual(torch.load(os.path.join(d, "ckpt.pt"))["step"], 6)
            # a checkpoint from before the probes (optimizer over the model only) resumes too
            path = os.path.join(d, "ckpt.pt")
            st = torch.load(path)
            st.pop("probes")
            st["opt"]["param_groups"] = st["opt"]["param_groups"][:1]
            n_model = len(st["opt"]["param_groups"][0]["params"])
            st["opt"]["state"] = {k: v for k, v in st["opt"]["state"].items() if k < n_model}
            torch.save(st, path)
            args[-1] = "8"
            with contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(train.main(args), 0)
            self.assertEqual(len(torch.load(path)["opt"]["param_groups"]), 2)

    def test_train_with_the_clause_probe(self):
        from train.nano import train

        with tempfile.TemporaryDirectory() as d:
            args = tiny_run(
                d, "--aux-clause", "1", "--aux-point", "1", "--aux-point-letter", "1", stage=53, steps=2
            )
            with contextlib.redirect_stdout(io.StringIO()) as out:
                self.assertEqual(train.main(args), 0)
            recs = [json.loads(x) for x in out.getvalue().splitlines() if x.startswith("{")]
            self.assertTrue(
                recs and all("aux3" in r and "aux4" in r and "aux5" in r for r in recs), out.getvalue()
            )
            # the clause letter read with the model's own head instead of the probe
            with contextlib.redirect_stdout(io.StringIO()) as out:
                self.assertEqual(train.main(args[:-1] + ["4", "--aux-clause-tied"]), 0)
            recs = [json.loads(x) for x in out.getvalue().splitlines() if x.startswith("{")]
            self.assertTrue(recs and all("aux3" in r for r in recs), out.getvalue())
            self.assertTrue(torch.load(os.path.join(d, "ckpt.pt"))["args"]["aux_clause_tied"])
        with tempfile.TemporaryDirectory() as d, contextlib.redirect_stderr(io.StringIO()) as err:
            self.assertEqual(train.main(args[:1] + [d] + args[2:] + ["--aux-clause-layer", "2"]), 2)
        self.assertIn("--aux-clause-layer 2", err.getvalue())
        with tempfile.TemporaryDirectory() as d, contextlib.redirect_stderr(io.StringIO()) as err:
            self.assertEqual(train.main(args[:1] + [d] + args[2:] + ["--aux-point-layer", "3"]), 2)
        self.assertIn("--aux-point-layer 3", err.getvalue())
        with tempfile.TemporaryDirectory() as d, contextlib.redirect_stderr(io.StringIO()) as err:
            self.assertEqual(train.main(args[:1] + [d] + args[2:] + ["--aux-point-head", "2"]), 2)
        self.assertIn("heads 0..1", err.getvalue())

    def test_bad_aux_layers_is_a_usage_error(self):
        from train.nano import train

        for bad in ("0", "a,b", "0,1,2", "-1,0"):
            with self.assertRaises(SystemExit) as e, contextlib.redirect_stderr(io.StringIO()):
                train.parse(["--run", "x", "--aux-layers", bad])
            self.assertEqual(e.exception.code, 2)
        with tempfile.TemporaryDirectory() as d, contextlib.redirect_stderr(io.StringIO()) as err:
            self.assertEqual(
                train.main(["--run", d, *TINY_MODEL, "--layers", "2", "--aux-layers", "0,2", "--steps", "1"]),
                2,
            )
        self.assertIn("layers 0..1", err.getvalue())
        with tempfile.TemporaryDirectory() as d, contextlib.redirect_stderr(io.StringIO()) as err:
            self.assertEqual(
                train.main(
                    ["--run", d, *TINY_MODEL, "--layers", "2", "--aux-point-letter", "1", "--steps", "1"]
                ),
                2,
            )
        self.assertIn("needs --aux-point", err.getvalue())


if __name__ == "__main__":
    unittest.main()
