"""Packing examples into training tensors with the prefix-cache attention pattern.

One row = one rule table: prefix ids (segment 0, positions 0..P-1), then for each situation
its suffix ids followed by an answer slot of k <|mask|> tokens (segment s, positions
restarting at P). The slot's targets are (letter, <|im_end|>, <|endoftext|>)[:k]; k is drawn
from 1..3 so the model answers for any slot length the runtime picks.
"""

from __future__ import annotations

import random

import torch

from .corpus import marks
from .tokenizer.bpe import CONTROL, Tokenizer
from .tokenizer.byte_unicode import decode_chars

LETTERS = "ABCDEF"


class Packer:
    def __init__(
        self,
        tok: Tokenizer,
        max_len: int = 256,
        aux_mask: float = 0.0,
        reveal: float = 0.0,
        reveal_mask: float = 0.4,
        prefix_mask: float = 0.0,
    ):
        self.tok, self.max_len, self.aux_mask = tok, max_len, aux_mask
        # masked-diffusion signal on the rule and options too (a dense objective: to fill a
        # masked rule token the model must read the table, the circuit the answer needs);
        # special tokens stay, so the layout is never hidden
        self.prefix_mask = prefix_mask
        self.reveal, self.reveal_mask = reveal, reveal_mask
        self.letter_ids = [tok.encode(L)[0] for L in LETTERS]
        assert all(len(tok.encode(L)) == 1 for L in LETTERS)

    def token_bytes(self, t: int) -> int:
        tok = self.tok
        return len(tok.tokens[t].encode()) if tok.types[t] == CONTROL else len(decode_chars(tok.tokens[t]))

    def marked(self, suffix: str) -> tuple[list[int], list[list[int]] | None]:
        """-> (ids of the suffix without marks, per-token mark kinds or None when unmarked).
        A token carries a kind when its bytes overlap the marked span (corpus/marks.py)."""
        if not marks.has_marks(suffix):
            return self.tok.encode(suffix), None
        text, spans = marks.spans(suffix)
        ids = self.tok.encode(text)
        labels, at = [], 0
        for t in ids:
            end = at + self.token_bytes(t)
            labels.append([k for (a, b, k) in spans if a < end and at < b])
            at = end
        assert at == len(text.encode("utf-8")), "token bytes do not add up to the text"
        return ids, labels

    def row(self, ex, rng: random.Random):
        """-> (ids, pos, seg, targets [(position, token id, is_letter, unused, letter index)],
        aux [(position, mark kinds, answer letter index)] for every token of a marked suffix and
        every clause-marked token of the prefix)"""
        tok = self.tok
        ids, plabels = self.marked(ex.prefix)
        aux = [(j, kinds, -1) for j, kinds in enumerate(plabels or []) if kinds]
        P = len(ids)
        pos = list(range(P))
        seg = [0] * P
        targets = []
        if self.prefix_mask > 0:
            special = {tok.mask, tok.im_end, tok.eot}
            for j in range(1, P):
                if ids[j] not in special and ids[j] < tok.mask - 3 and rng.random() < self.prefix_mask:
                    targets.append((j, ids[j], False, 0, -1))
                    ids[j] = tok.mask
        for s, (suffix, ans) in enumerate(zip(ex.suffixes, ex.answers), start=1):
            sids, labels = self.marked(suffix)
            # a situation that a clause answers: its answer row points at that clause (--aux-point)
            from_clause = labels is not None and any(marks.FROM_CLAUSE in kinds for kinds in labels)
            if from_clause:
                labels = [[x for x in kinds if x != marks.FROM_CLAUSE] for kinds in labels]
                if not any(labels):
                    labels = None  # no evidence marks: not a negative for the suffix probes
            k = rng.randint(1, 3)
            want = [tok.encode(ans)[0], tok.im_end, tok.eot][:k]
            if len(ids) + len(sids) + k > self.max_len:
                break
            start = len(ids)
            if labels is not None:
                aux += [(start + j, kinds, LETTERS.index(ans)) for j, kinds in enumerate(labels)]
            # Reverse direction (training only): the answer is shown and situation tokens are
            # masked instead; the condition's tokens are then predictable only by binding the
            # letter to its condition in the rule and copying it, the circuit the forward task
            # needs, with a denser signal. Otherwise, optional extra masked situation tokens.
            revealed = self.reveal > 0 and rng.random() < self.reveal
            rate = self.reveal_mask if revealed else self.aux_mask
            if rate > 0:
                for j in range(1, len(sids)):
                    if rng.random() < rate:
                        targets.append((start + j, sids[j], False, 0, -1))
                        sids = sids[:j] + [tok.mask] + sids[j + 1 :]
            if revealed:
                ids += sids + want
                pos += list(range(P, P + len(sids) + k))
                seg += [s] * (len(sids) + k)
                continue
            if from_clause:
                aux.append((start + len(sids) - 1, [marks.FROM_CLAUSE], LETTERS.index(ans)))
            ids += sids + [tok.mask] * k
            pos += list(range(P, P + len(sids) + k))
            seg += [s] * (len(sids) + k)
            for j, t in enumerate(want):
                is_letter = j == 0
                targets.append(
                    (start + len(sids) + j, t, is_letter, 0, LETTERS.index(ans) if is_letter else -1)
                )
        return ids, pos, seg, targets, aux

    def batch(self, examples, rng: random.Random):
        rows = [self.row(ex, rng) for ex in examples]
        T = max(len(r[0]) for r in rows)
        B = len(rows)
        ids = torch.full((B, T), self.tok.eot, dtype=torch.long)
        pos = torch.zeros((B, T), dtype=torch.long)
        seg = torch.full((B, T), -1, dtype=torch.long)
        tb, tp, tt, letter_rows, letter_sets, letter_ans = [], [], [], [], [], []
        aux_lab = torch.zeros((B, T, marks.KINDS))
        aux_m = torch.zeros((B, T))
        aux_letter = torch.full((B, T), -100, dtype=torch.long)  # the answer at the subject's direction word
        aux_clause = torch.full((B, T), -100, dtype=torch.long)  # the letter a rule clause names
        point = []  # (row, answer-read position, letter): the situation a clause answers
        for b, (i, p, s, targets, aux) in enumerate(rows):
            for position, kinds, li in aux:
                if kinds == [marks.FROM_CLAUSE]:
                    point.append((b, position, li))
                    continue
                named = [k - marks.CLAUSE for k in kinds if k >= marks.CLAUSE]
                if named:  # a clause-marked token (prefix) or a condition word (match-table situation)
                    aux_clause[b, position] = named[0]
                    continue
                aux_m[b, position] = 1.0
                if marks.DIRECTION in kinds:
                    aux_letter[b, position] = li
                for k in kinds:
                    aux_lab[b, position, k] = 1.0
            ids[b, : len(i)] = torch.tensor(i)
            pos[b, : len(p)] = torch.tensor(p)
            seg[b, : len(s)] = torch.tensor(s)
            opts = examples[b].option_letters
            for position, t, is_letter, _, li in targets:
                if is_letter:
                    letter_rows.append(len(tb))
                    letter_sets.append([LETTERS.index(L) for L in opts])
                    letter_ans.append(li)
                tb.append(b)
                tp.append(position - 1)  # Dream shift: token p is predicted at p-1
                tt.append(t)
        # the answer row of each such situation should attend to the clause tokens of its letter
        # (prefix tokens only: match-table situations mark their condition words too, Stage.match_marks)
        named_at = torch.where(seg == 0, aux_clause, torch.full_like(aux_clause, -100))
        point = [(b, r, li) for b, r, li in point if (named_at[b] == li).any()]
        point_mask = (
            torch.stack([(named_at[b] == li).float() for b, _, li in point]) if point else torch.zeros((0, T))
        )
        return {
            "point_b": torch.tensor([b for b, _, _ in point], dtype=torch.long),
            "point_row": torch.tensor([r for _, r, _ in point], dtype=torch.long),
            "point_mask": point_mask,
            "point_letter": torch.tensor([li for _, _, li in point], dtype=torch.long),
            "ids": ids,
            "pos": pos,
            "seg": seg,
            "t_batch": torch.tensor(tb),
            "t_pos": torch.tensor(tp),
            "t_tok": torch.tensor(tt),
            "letter_rows": torch.tensor(letter_rows),
            "letter_sets": letter_sets,
            "letter_ans": torch.tensor(letter_ans),
            "aux_lab": aux_lab,
            "aux_m": aux_m,
            "aux_letter": aux_letter,
            "aux_clause": aux_clause,
        }
