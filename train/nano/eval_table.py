"""Issue 4's evaluation table: one markdown table (and --json) of the quality targets.

    python3 -m train.nano.eval_table --ckpt train/runs/NAME/ckpt.pt --gguf models/meadow-nano.gguf \
        [--cli build/meadow-mind] [--tables 200] [--json table.json]

Rows (name | n | accuracy | target; n counts decisions):
  1. held-out synthetic tables: fresh tables of the eval stream (seed + train.EVAL_SEED_OFFSET,
     the last curriculum stage), >= 0.98;
  2. the same with content words drawn only from the unseen side of the word split
     (corpus/wordlists.py: ~10 % of wamerican that training never uses), >= 0.97;
  3. relational rules only (kind "relational": the last stage's knobs with every table
     relational, since the last stage may mix in few or none), >= 0.95;
  4. each built-in task's exam (`meadow-mind list --json`), decided by the C++ runtime: 0 misses;
  5. relabelling invariance: the same table with its letters permuted (a derangement of the
     table's own letters, in the rule and in the options; the options keep their listing
     order) must get the permuted letter of the original choice, right or wrong; once over
     row 1's synthetic tables, once over the built-in exams, >= 0.98 each;
  6. rephrasing robustness: heldout/rephrased.txt (the exams reworded by hand), decided by the
     runtime with the task's rule and options, >= 0.90.
Synthetic rows run the PyTorch checkpoint in the runtime's prompt exactly (chat layout, the
default system prompt, "A) text" option lines, a 3-mask answer slot, the letter read at the
first mask and restricted to the table's letters); the exported GGUF equals it to 1e-4
(tests/train/test_runtime_parity.py), and a few of row 1's decisions are also run through the
runtime as a check (the "parity" line on stderr). Built-in rows use --gguf through --cli, one
`decide` process per decision (~20 ms each). Without --gguf the checkpoint is exported to a
temporary GGUF first. The table goes to stdout, notes (model, parity, time) to stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace

from train.common import prompt
from train.common.heldout import filter as heldout

from .corpus import layout, marks
from .corpus import templates as T
from .corpus import wordlists as W
from .corpus.curriculum import STAGES
from .corpus.curriculum import name_of
from .corpus.curriculum import stage as get_stage
from .corpus.generate import draw_table

REPHRASED = os.path.join(heldout.HELDOUT_DIR, "rephrased.txt")
BUILTIN = ("cartpole", "mountaincar", "frozenlake", "lunarlander", "maze")
EVAL_SEED_OFFSET = 1_000_003  # = train.EVAL_SEED_OFFSET (checked in main; train imports torch)


# ---- pure helpers (tests/train/test_eval_table.py) ------------------------------------------


def parse_rephrased(lines) -> list[tuple[str, str, str]]:
    """`task<TAB>letter<TAB>sentence` lines ('#' comments, blank lines skipped) ->
    [(task, letter, sentence)]; raises ValueError naming the bad line."""
    out = []
    for n, raw in enumerate(lines, start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = [p.strip() for p in line.split("\t")]
        if len(parts) != 3 or not all(parts):
            raise ValueError(f"line {n}: expected task<TAB>letter<TAB>sentence, got {raw.rstrip()!r}")
        task, letter, sentence = parts
        if len(letter) != 1 or not "A" <= letter <= "Z":
            raise ValueError(f"line {n}: {letter!r} is not an option letter")
        out.append((task, letter, sentence))
    return out


def load_rephrased(path: str = REPHRASED) -> list[tuple[str, str, str]]:
    with open(path, encoding="utf-8") as f:
        return parse_rephrased(f)


# a letter standing alone: not inside a word, not "A's", not "A-1"
_LETTER = re.compile(r"(?<![\w'’-])([A-Z])(?![\w'’-])")


def derangement(rng: random.Random, letters) -> dict[str, str]:
    """A permutation of the table's letters that moves every letter (the swap for two)."""
    letters = list(letters)
    if len(letters) < 2:
        raise ValueError("a table needs two letters to relabel")
    while True:
        new = letters[:]
        rng.shuffle(new)
        if all(a != b for a, b in zip(letters, new)):
            return dict(zip(letters, new))


def relabel(rule: str, options, perm: dict[str, str]):
    """(rule, [(letter, text)]) with every letter mapped through perm, in the rule's sentences
    and in the options (which keep their listing order). Raises ValueError if the rule holds a
    lone capital letter that is not one of the options' (a word, not a letter: can't relabel)."""
    opts = [(perm[L], t) for L, t in options]
    stray = [m for m in _LETTER.findall(rule) if m not in perm]
    if stray:
        raise ValueError(f"rule holds lone letters {stray} that are not options: {rule!r}")
    return _LETTER.sub(lambda m: perm[m.group(1)], rule), opts


def runtime_prompt(rule: str, options) -> str:
    """The runtime's constant prefix (src/decision/prompt.cpp, docs/prompt-contract.md)."""
    return layout.chat_prefix(T.DEFAULT_SYSTEM, rule, prompt.option_lines(options))


@dataclass
class Case:
    """One rule table and its situations (the synthetic rows' unit)."""

    kind: str
    rule: str
    options: list[tuple[str, str]]
    situations: list[str]
    answers: list[str]
    choices: list[str] = field(default_factory=list)
    conds: dict[str, list[list[str]]] = field(
        default_factory=dict
    )  # letter -> its conditions' words (match tables)


# ---- the corpus side --------------------------------------------------------------------------


def _reset_split_caches() -> None:
    # corpus/scenes.py keeps its noun list in a module global; drop it so it is rebuilt from
    # the word split in force (tables.py's pools are keyed by the split themselves)
    scenes = sys.modules.get("corpus.scenes")
    if scenes is not None and hasattr(scenes, "_NOUNS"):
        scenes._NOUNS = None


def synthetic_cases(
    seed: int,
    stage: str | int,
    n: int,
    split: str = "train",
    relational: bool = False,
    one_condition: bool = True,
    knobs: dict | None = None,
) -> list[Case]:
    """n tables of the stream (seed, stage): draws i use random.Random(f"{seed}:{stage.seed}:{i}"),
    as corpus.generate.example does, except that the layout is the runtime's and (one_condition)
    no situation holds a second whole condition; `knobs` overrides fields of the stage (a probe
    forcing one table shape, as train/nano/diag/probe_events.py does)."""
    # a situation states exactly one condition: parts of other conditions never add up to a
    # whole one (in the training streams they can, a second answer in ~5 % of match situations)
    base = get_stage(stage)
    st = replace(base, partial_whole=not one_condition, **(knobs or {}))
    if relational:
        force = {"relational": 1.0, "bucket": 0.0, "scene": 0.0}
        st = replace(st, **{k: v for k, v in force.items() if hasattr(st, k)})
    out = []
    with W.word_split(split):
        _reset_split_caches()
        try:
            for i in range(n):
                table, sits, answers = draw_table(random.Random(f"{seed}:{base.seed}:{i}"), st)
                # a marked stage (47 on) holds probe marks the packer strips in training: read the plain text
                out.append(
                    Case(
                        table.kind,
                        marks.strip(table.rule),
                        [(o.letter, marks.strip(o.text)) for o in table.options],
                        [marks.strip(x) for x in sits],
                        answers,
                        conds={
                            o.letter: [[marks.strip(w) for w in c] for c in o.conds] for o in table.options
                        },
                    )
                )
        finally:
            _reset_split_caches()
    return out


# ---- the two deciders ---------------------------------------------------------------------------


class TorchDecider:
    """The checkpoint, fed exactly the runtime's token ids (prefix and suffix tokenized apart)."""

    def __init__(self, ckpt: str, threads: int = 1):
        import torch

        from .model import Config, DreamModel
        from .tokenizer.bpe import Tokenizer

        self.torch = torch
        torch.set_num_threads(threads)
        st = torch.load(ckpt, map_location="cpu")
        self.model = DreamModel(Config(**st["config"]))
        self.model.load_state_dict(st["model"])
        self.model.eval()
        self.tok = Tokenizer.load(st["tokenizer"])
        self.seed, self.step, self.stage = st.get("seed", 0), st.get("step"), st.get("stage")
        self.letter_ids = {L: self.tok.encode(L)[0] for L in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"}
        self._enc: dict[str, list[int]] = {}

    def _encode(self, text: str) -> list[int]:
        if text not in self._enc:
            self._enc[text] = self.tok.encode(text)
        return self._enc[text]

    def probs(self, tables, slot: int = 3, batch: int = 16) -> list[list[dict[str, float]]]:
        """tables: [(rule, [(letter, text)], [situation])] -> per table, per situation, the
        softmax over the table's letters at the first mask of the answer slot."""
        torch = self.torch
        out = []
        for b0 in range(0, len(tables), batch):
            chunk = tables[b0 : b0 + batch]
            rows, reads = [], []
            for rule, options, sits in chunk:
                ids = list(self._encode(runtime_prompt(rule, options)))
                P = len(ids)
                pos, seg, rd = list(range(P)), [0] * P, []
                for s_i, s in enumerate(sits, start=1):
                    sids = self._encode(layout.chat_suffix(s))
                    rd.append(
                        len(ids) + len(sids) - 1
                    )  # Dream shift: the first mask's letter is read one row earlier
                    ids += sids + [self.tok.mask] * slot
                    pos += list(range(P, P + len(sids) + slot))
                    seg += [s_i] * (len(sids) + slot)
                rows.append((ids, pos, seg))
                reads.append(rd)
            T_ = max(len(r[0]) for r in rows)
            ids_t = torch.full((len(rows), T_), self.tok.eot, dtype=torch.long)
            pos_t = torch.zeros((len(rows), T_), dtype=torch.long)
            seg_t = torch.full((len(rows), T_), -1, dtype=torch.long)
            for b, (i, p, s) in enumerate(rows):
                ids_t[b, : len(i)] = torch.tensor(i)
                pos_t[b, : len(p)] = torch.tensor(p)
                seg_t[b, : len(s)] = torch.tensor(s)
            with torch.no_grad():
                h = self.model.hidden(ids_t, pos_t, seg_t)
                for b, ((_, options, _), rd) in enumerate(zip(chunk, reads)):
                    letters = [L for L, _ in options]
                    z = self.model.head(h[b, rd])[:, [self.letter_ids[L] for L in letters]].double()
                    p = torch.softmax(z, dim=-1).tolist()
                    out.append([dict(zip(letters, row)) for row in p])
        return out

    def choose(self, cases: list[Case]) -> list[list[str]]:
        probs = self.probs([(c.rule, c.options, c.situations) for c in cases])
        return [[max(p, key=p.get) for p in table] for table in probs]


class CliDecider:
    """`meadow-mind decide --json`, one process per decision."""

    def __init__(self, cli: str, gguf: str, threads: int = 1):
        self.cli, self.gguf, self.threads = cli, gguf, threads
        self.calls = 0

    def decide(self, rule: str, options, state: str) -> dict:
        cmd = [
            self.cli,
            "decide",
            "--model",
            self.gguf,
            "--rule",
            rule,
            "--state",
            state,
            "--json",
            "--threads",
            str(self.threads),
        ]
        for L, t in options:
            cmd += ["--option", f"{L}={t}"]
        self.calls += 1
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd[:2])} failed ({r.returncode}): {r.stderr.strip()}")
        return json.loads(r.stdout)

    def tasks(self) -> list[dict]:
        r = subprocess.run([self.cli, "list", "--json"], capture_output=True, text=True, check=True)
        return json.loads(r.stdout)


# ---- rows -----------------------------------------------------------------------------------------


def acc_row(name: str, hits: list[bool], target: float, **extra) -> dict:
    n = len(hits)
    acc = sum(hits) / n if n else float("nan")
    return {
        "name": name,
        "n": n,
        "accuracy": acc,
        "target": target,
        "target_kind": "min_accuracy",
        "pass": bool(n) and acc >= target,
        **extra,
    }


def chance_of(cases: list[Case]) -> float:
    w = [1.0 / len(c.options) for c in cases for _ in c.situations]
    return sum(w) / len(w) if w else float("nan")


def table_hits(cases: list[Case]) -> list[list[bool]]:
    """Per table, one hit per situation."""
    return [[ch == a for ch, a in zip(c.choices, c.answers)] for c in cases]


def synthetic_hits(cases: list[Case]) -> list[bool]:
    return [h for g in table_hits(cases) for h in g]


def table_se(groups: list[list[bool]]) -> float:
    """Standard error of the pooled accuracy with tables as the sampled unit: a table's
    situations share its words, so they are not independent draws and the binomial error
    would understate the spread (the first 200 tables of a 600-table stream can read a point
    lower than the rest)."""
    groups = [g for g in groups if g]
    n, t = sum(len(g) for g in groups), len(groups)
    if t < 2:
        return float("nan")
    p = sum(sum(g) for g in groups) / n
    return (t / (t - 1) * sum((sum(g) - p * len(g)) ** 2 for g in groups)) ** 0.5 / n


def synthetic_se(cases: list[Case]) -> float:
    return table_se(table_hits(cases))


def by_kind(cases: list[Case]) -> dict[str, dict]:
    """Accuracy and chance per table kind (scene / match / bucket / relational): a row's mean
    can hide a kind at chance (the step-45,000 model: scene tables 0.93, word tables at chance)."""
    out: dict[str, dict] = {}
    for kind in sorted({c.kind for c in cases}):
        part = [c for c in cases if c.kind == kind]
        hits = synthetic_hits(part)
        out[kind] = {
            "n": len(hits),
            "accuracy": sum(hits) / len(hits) if hits else float("nan"),
            "chance": chance_of(part),
        }
    return out


def relabel_synthetic(dec: TorchDecider, cases: list[Case]) -> tuple[list[list[bool]], int]:
    """-> (per table, one hit per decision: permuted choice == perm(original choice); tables skipped)."""
    jobs, skipped = [], 0
    for i, c in enumerate(cases):
        perm = derangement(random.Random(f"relabel:{i}"), [L for L, _ in c.options])
        try:
            rule, opts = relabel(c.rule, c.options, perm)
        except ValueError:
            skipped += 1
            continue
        jobs.append((c, perm, Case(c.kind, rule, opts, c.situations, [perm[a] for a in c.answers])))
    new = dec.choose([j[2] for j in jobs])
    hits = [[perm[old] == ch for old, ch in zip(c.choices, chs)] for (c, perm, _), chs in zip(jobs, new)]
    return hits, skipped


def fmt_row(r: dict) -> str:
    if r["target_kind"] == "max_misses":
        acc = f"{r['accuracy']:.3f} ({r['misses']} missed)"
        tgt = f"{r['target']} misses" if r["target"] else "0 misses"
    else:
        se = r.get("se")
        acc = f"{r['accuracy']:.3f}" + (f" (SE {se:.3f})" if se is not None and se == se else "")
        tgt = f"≥ {r['target']:.2f}"
    line = f"| {r['name']} | {r['n']} | {acc} | {tgt} |"
    for kind, k in r.get("by_kind", {}).items():
        line += f"\n| · {kind} tables (chance {k['chance']:.3f}) | {k['n']} | {k['accuracy']:.3f} | (part) |"
    return line


def parse_args(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--ckpt", help="PyTorch checkpoint (synthetic rows; exported to a GGUF if --gguf is not given)"
    )
    ap.add_argument(
        "--gguf", help="GGUF model for the runtime rows (built-in exams, relabelled exams, rephrasings)"
    )
    ap.add_argument("--cli", default="build/meadow-mind", help="meadow-mind binary")
    ap.add_argument("--tables", type=int, default=200, help="synthetic tables per synthetic row")
    ap.add_argument(
        "--stage",
        default=None,
        help="curriculum stage (name) of the synthetic rows (default: the checkpoint's own, else the last)",
    )
    ap.add_argument(
        "--seed",
        type=int,
        help="training seed (default: the checkpoint's); the eval stream is seed + 1000003",
    )
    ap.add_argument("--rephrased", default=REPHRASED)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--json", help="write the rows (and run details) to this file")
    a = ap.parse_args(argv)
    if not a.ckpt and not a.gguf:
        ap.error("give --ckpt (synthetic rows) and/or --gguf (runtime rows)")
    return a


def export_quietly(ckpt: str, tmp: tempfile.TemporaryDirectory) -> str:
    """The checkpoint exported to a GGUF in tmp (export_gguf's output silenced)."""
    from . import export_gguf

    gguf = os.path.join(tmp.name, "model.gguf")
    with open(os.devnull, "w") as devnull:
        old, sys.stdout = sys.stdout, devnull
        try:
            export_gguf.main(["--ckpt", ckpt, "--out", gguf])
        finally:
            sys.stdout = old
    return gguf


def synthetic_rows(
    dec: TorchDecider, eval_seed: int, stage: str, tables: int
) -> tuple[list[dict], list[Case]]:
    """Rows 1-3 (held-out synthetic tables, unseen words, relational rules) through the checkpoint,
    and the held-out cases (the relabelling and parity rows reuse them)."""
    held = synthetic_cases(eval_seed, stage, tables)
    unseen = synthetic_cases(eval_seed, stage, tables, split="unseen")
    rel = synthetic_cases(eval_seed, stage, tables, relational=True)
    for cases in (held, unseen, rel):
        for c, ch in zip(cases, dec.choose(cases)):
            c.choices = ch
    rows = [
        acc_row(
            f"held-out synthetic tables (stage {stage})",
            synthetic_hits(held),
            0.98,
            se=synthetic_se(held),
            chance=chance_of(held),
            by_kind=by_kind(held),
        ),
        acc_row(
            "synthetic tables, unseen words",
            synthetic_hits(unseen),
            0.97,
            se=synthetic_se(unseen),
            chance=chance_of(unseen),
            by_kind=by_kind(unseen),
        ),
        acc_row("relational rules", synthetic_hits(rel), 0.95, se=synthetic_se(rel), chance=chance_of(rel)),
    ]
    return rows, held


def exam_rows(cli: CliDecider, tasks: dict) -> tuple[list[dict], list[bool], list[dict]]:
    """Row 4 (each built-in task's exam through the runtime) and 5b's relabelled exams: (exam
    rows, relabelling hits, relabelling misses)."""
    rows, relabel_hits, relabel_misses = [], [], []
    for name in BUILTIN:
        t = tasks[name]
        opts = [(o["letter"], o["text"]) for o in t["options"]]
        misses = []
        for k, item in enumerate(t["exam"]):
            d = cli.decide(t["rule"], opts, item["status"])
            if d["letter"] != item["expected"]:
                misses.append({"status": item["status"], "expected": item["expected"], "got": d["letter"]})
            perm = derangement(random.Random(f"relabel:{name}:{k}"), [L for L, _ in opts])
            rule2, opts2 = relabel(t["rule"], opts, perm)
            d2 = cli.decide(rule2, opts2, item["status"])
            relabel_hits.append(d2["letter"] == perm[d["letter"]])
            if not relabel_hits[-1]:
                relabel_misses.append(
                    {
                        "task": name,
                        "status": item["status"],
                        "letters": perm,
                        "expected": perm[d["letter"]],
                        "got": d2["letter"],
                        "probs": {k: round(v, 3) for k, v in d2["probs"].items()},
                    }
                )
        n = len(t["exam"])
        rows.append(
            {
                "name": f"exam: {name}",
                "n": n,
                "accuracy": (n - len(misses)) / n,
                "misses": len(misses),
                "target": 0,
                "target_kind": "max_misses",
                "pass": not misses,
                "missed": misses,
            }
        )
    return rows, relabel_hits, relabel_misses


def rephrasing_row(cli: CliDecider, tasks: dict, path: str) -> dict:
    """Row 6: the exams reworded by hand (heldout/rephrased.txt) through the runtime."""
    hits, misses = [], []
    for task, letter, sentence in load_rephrased(path):
        t = tasks[task]
        d = cli.decide(t["rule"], [(o["letter"], o["text"]) for o in t["options"]], sentence)
        hits.append(d["letter"] == letter)
        if d["letter"] != letter:
            misses.append(
                {
                    "task": task,
                    "status": sentence,
                    "expected": letter,
                    "got": d["letter"],
                    "probs": {k: round(v, 3) for k, v in d["probs"].items()},
                }
            )
    return acc_row("rephrasing robustness (heldout/rephrased.txt)", hits, 0.90, missed=misses)


def parity(dec: TorchDecider, cli: CliDecider, held: list[Case]) -> dict:
    """A few of row 1's decisions through the runtime as well: the largest probability gap."""
    diffs, agree, n = [], 0, 0
    for c in held[:3]:
        tp = dec.probs([(c.rule, c.options, c.situations[:2])])[0]
        for s, p in zip(c.situations[:2], tp):
            d = cli.decide(c.rule, c.options, s)
            diffs.append(max(abs(p[L] - d["probs"][L]) for L in p))
            agree += d["letter"] == max(p, key=p.get)
            n += 1
    print(
        f"parity: {n} synthetic decisions through the runtime too: max |p_torch - p_runtime| = "
        f"{max(diffs):.2e}, same letter {agree}/{n}",
        file=sys.stderr,
    )
    return {"decisions": n, "max_abs_prob_diff": max(diffs), "same_letter": agree}


def main(argv=None) -> int:
    a = parse_args(argv)
    t0 = time.time()
    dec = TorchDecider(a.ckpt, a.threads) if a.ckpt else None
    if a.stage is None:  # the stage the model last trained on: a later, untrained stage would mislead
        a.stage = dec.stage if dec and dec.stage is not None else list(STAGES)[-1]
    a.stage = name_of(a.stage)
    info: dict = {"stage": a.stage, "tables": a.tables, "cli": a.cli}
    if dec:
        from . import train as trainer  # torch is loaded by now anyway

        assert trainer.EVAL_SEED_OFFSET == EVAL_SEED_OFFSET
        info.update(ckpt=a.ckpt, step=dec.step, ckpt_stage=dec.stage)
    seed = a.seed if a.seed is not None else (dec.seed if dec else 0)
    info["seed"] = seed
    tmp = tempfile.TemporaryDirectory() if a.ckpt and not a.gguf else None
    gguf = export_quietly(a.ckpt, tmp) if tmp else a.gguf
    info["gguf"] = a.gguf or "(exported from --ckpt to a temporary file)"
    cli = CliDecider(a.cli, gguf, a.threads) if gguf else None

    eval_seed = seed + EVAL_SEED_OFFSET
    rows, held = synthetic_rows(dec, eval_seed, a.stage, a.tables) if dec else ([], [])
    tasks = {t["name"]: t for t in cli.tasks()} if cli else {}
    if cli:
        exams, relabel_hits, relabel_misses = exam_rows(cli, tasks)
        rows += exams
    if dec:
        groups, skipped = relabel_synthetic(dec, held)
        rows.append(
            acc_row(
                "relabelling invariance: synthetic tables",
                [h for g in groups for h in g],
                0.98,
                se=table_se(groups),
                skipped_tables=skipped,
            )
        )
    if cli:
        rows.append(
            acc_row("relabelling invariance: built-in exams", relabel_hits, 0.98, missed=relabel_misses)
        )
        rows.append(rephrasing_row(cli, tasks, a.rephrased))
    if dec and cli and held:
        info["parity"] = parity(dec, cli, held)

    info["seconds"] = round(time.time() - t0, 1)
    info["runtime_calls"] = cli.calls if cli else 0
    print("| name | n | accuracy | target |")
    print("| --- | --- | --- | --- |")
    for r in rows:
        print(fmt_row(r))
    model = f"ckpt {a.ckpt} (step {info.get('step')})" if a.ckpt else f"gguf {a.gguf}"
    print(
        f"{model}; eval stream seed {eval_seed}, stage {a.stage}, {a.tables} tables per synthetic row; "
        f"{info['runtime_calls']} runtime calls; {info['seconds']} s",
        file=sys.stderr,
    )
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump({"info": info, "rows": rows}, f, indent=1)
    if tmp:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
