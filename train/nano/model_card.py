"""Write meadow-nano's card and its full record from measurements, so neither states a number by
hand: models/MODEL_CARD.md (`--card`: what, trained how, measured how well, limits, in two
screens) and docs/meadow-nano-record.md (`--out`: the data, every stage's tables, every training
phase, the whole evaluation and bench tables).

    python3 -m train.nano.model_card --ckpt RUN/ckpt.pt --gguf models/meadow-nano.gguf \
        --eval RUN/eval.json --bench RUN/bench.json --plays RUN/plays.txt

`--card` defaults to models/MODEL_CARD.md when `--out` is left at its default, else no card is
written (tests write a record to a temporary folder and leave the card alone).

Inputs: the checkpoint (architecture, steps, training time, curriculum counters), the GGUF
(size), eval_table.py's --json, `meadow-mind bench` JSON, and the verdict lines of
`meadow-mind play TASK` for the built-in tasks (plays.txt, one "task: verdict" per line).
It also writes models/meadow-nano.targets.json (which end-to-end targets are met) from the
same measurements; the end-to-end tests assert the claimed ones.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from .tokenizer.bpe import Tokenizer

HERE = os.path.dirname(os.path.abspath(__file__))

TASKS = ("cartpole", "mountaincar", "frozenlake", "lunarlander", "maze")
CARD = "models/MODEL_CARD.md"
RECORD = "docs/meadow-nano-record.md"


def _threads(n: int) -> str:
    return "one CPU thread" if n == 1 else f"{n} CPU threads"


def _how(args: dict) -> str:
    """Threads and precision of a training invocation (train.py --threads, --threads-later, --bf16)."""
    how = _threads(args.get("threads") or 1)
    later = args.get("threads_later")
    if later:
        how += f", {_threads(int(later[1]))} once `{os.path.basename(later[0])}` existed"
    return f"{how}, {'bfloat16 autocast' if args.get('bf16') else 'float32'}"


def _counters(st: dict) -> dict:
    return {int(k): v for k, v in (st.get("counters") or {}).items()}


def _stages(counters: dict) -> str:
    return ", ".join(f"stage {k}: {v} tables" for k, v in sorted(counters.items()))


def _shape(c: dict) -> str:
    return f"{c['dim']} x {c['layers']}"


SCENES_DATA = (
    "The scene curriculum (stages 9-14 and 30 of `corpus/curriculum.py`) is plain-English scenes "
    "(`corpus/scenes.py`): relational rules (the same way / the opposite way a thing moves, toward / away "
    "from a named thing) whose answer is the option whose text holds the situation's direction, with "
    'distractor things and directions, "do nothing" options and clauses that name an option by its text; '
    'clause tables ("If the X is V-ing D, choose L.", "... too fast", "otherwise") whose clauses can '
    "differ only in the word after the verb; from stage 12 on, the word-table kinds (random wamerican "
    "content words, 16 templates, synonyms, inflections, bucketed numbers); in stage 13, clause tables in "
    'mixed forms ("sinks too fast", "leans too far left") with a default in any slot and option texts '
    "whose direction words disagree with the clauses'; in stage 30 (the scene recipe's last 4,000 steps, "
    'replaying 9-14), half the place phrases\' nouns ("high up a N") are any dictionary noun, mostly rare '
    "tokens. Nouns come from WordNet's noun list among frequent words."
)
WORDS_DATA = (
    "The word curriculum (stages 0-1 in a compact layout, then 16-27 in the chat layout) is open-vocabulary "
    "rule tables (`corpus/tables.py`): conditions of random wamerican words, 2-6 options, the gap between a "
    "condition and its letter one template group at a time, lead words, option texts, two-word and rare-word "
    "conditions (26), partial-match distractors (27) and the word tables of stages 12-13 with option-text "
    "clauses (25). The joint fine-tune trains stage 13 (scenes and word tables) replaying both branches' "
    "stages, then eleven phases, each replaying the scene stages (9-14, 30) and the word branch's (22-25): "
    'stage 37 (relational word tables beside still clauses naming any option, with "still D of the N" '
    "clauses in the word relational tables); stage 51 (scene situations reworded at level 2, still "
    "clauses aimed at the neutral option), where training-time probes on marked text start (`corpus/marks.py`; "
    "never exported): on layers 0 and 1, which situation word is the rule's subject and which its direction "
    "word, on layer 1 the letter of the option a rule clause names by its text, and the answer letter at "
    "the subject's direction word; stage 62 (a drill of still clauses only, \"If the N is still left of the "
    'M, ...", naming their option by letter half the time); and the final mix, stage 61: relational word '
    'tables, most of four options in two direction pairs, scene place phrases ("along the bottom of the '
    "N\"), the hazard's phrase first in half the toward / away situations and their directions in other "
    'words ("the goal is 9 steps below"), the drills replayed; then the word tables (stage 25) as half '
    "of each batch, the mix again at a low lr, the mix with 70 % of its scene situations reworded "
    '(stage 65), and last the same with most scene tables\' "otherwise" options named by any text (an action, '
    "an idle phrase, a dictionary noun) instead of four idle phrases, so the default is found by its letter "
    "(stage 66), then half of the scene tables replaced by event tables in everyday English, several "
    'things each with its own predicate ("If the N is V-ing, choose A; if the M V-s, choose B.", '
    "`corpus/events.py`; stage 67) and stage 66 twice more at a low lr. The polish (after the spread) "
    "alternates the word tables (25) and the event tables (67), each replaying the other, and ends with "
    "word tables in which a third of the content words are made up (two dictionary words spliced, never a "
    "dictionary word; stage 68), so a condition can only be matched by its spelling. Stage 61's place "
    "phrases were written after reading the rephrasing row's misses (docs/training-sessions.md, session 17)."
)
# the event cycles after the polish's mean (the recipe's events phase), when the counters show them
POST_DATA = (
    "After the polish's mean, four event cycles (phase `events`): event tables whose clauses "
    'share nouns or predicates (stage 69), take one form (71) or end in one BPE token (74: "is burning" '
    'beside "is barking", so a clause must be matched by its whole predicate, not its ending), each '
    "followed by the stage-67 mix, then the word tables (25) replaying stage 74 and stage 74 replaying the "
    "word tables."
)
HELD_OUT = (
    "10 % of wamerican (`wordlists.is_unseen`) never appears in training. Held out: every rule, option "
    "text and status sentence of the built-in tasks and the hand rephrasings (`train/common/heldout/`): no 6-word "
    "window of them is ever generated (`check_contamination.py`), and the built-in tasks' nouns (pole, "
    "cart, car, lander, goal, hole, path, ...) are never scene subjects."
)


def _wrap(text: str, prefix: str = "") -> str:
    """A paragraph or list item at the repository's 100 columns (code spans may wrap)."""
    import textwrap

    return textwrap.fill(
        text,
        100,
        initial_indent=prefix,
        subsequent_indent=" " * len(prefix),
        break_long_words=False,
        break_on_hyphens=False,
    )


def _span(values, fmt) -> str:
    """ "1.5-1.8" for the range of some numbers, "1.5" when they agree."""
    lo, hi = fmt.format(min(values)), fmt.format(max(values))
    return lo if lo == hi else f"{lo}-{hi}"


def short_card(f: dict) -> str:
    """models/MODEL_CARD.md: what the model is, how it was trained, how well it reads, its limits;
    two screens. `f` holds the measurements main() gathered (plain data, so tests need no torch)."""
    c, ev, rows = f["arch"], f["eval"], f["eval"]["rows"]
    L = ["# meadow-nano — model card", ""]
    L += [
        _wrap(
            "`models/meadow-nano.gguf` is the model `meadow-mind` uses when no other is configured. "
            "`train/nano/model_card.py` writes this card from the measurements named below; nothing is typed "
            f"by hand. The full record of its data, stages and training phases is `{f['record']}`; "
            "how it came to be, `docs/lab-notebook.md`."
        ),
        "",
    ]
    L += ["## What", ""]
    L.append(
        _wrap(
            "Reads a rule table (a rule over lettered options) and a one-sentence situation and "
            "answers the option's letter in one forward pass (`docs/prompt-contract.md`). The rule and "
            "options are a prefix whose K/V the runtime caches, so a decision runs only the "
            "situation's tokens.",
            "- ",
        )
    )
    L.append(
        _wrap(
            f"A masked-diffusion transformer in the `dream` layout (Qwen2 blocks, bidirectional "
            f"attention, shifted logits): {c['layers']} layers, width {c['dim']}, {c['heads']} heads / "
            f"{c['kv_heads']} KV heads, SwiGLU FFN {c['ffn']}, tied embeddings, vocabulary {c['vocab']} "
            "(byte-level BPE trained on its corpus, ChatML specials and `<|mask|>`).",
            "- ",
        )
    )
    L.append(_wrap(f"{f['params']:,} parameters; {f['bytes']:,} bytes (F32). English.", "- "))
    L += ["", "## Trained how", ""]
    L.append(
        _wrap(
            "From scratch, on a procedural corpus (`train/nano/corpus/`, deterministic from a seed): rule "
            "tables over plain-English scenes (things that move, lean, sink or lie somewhere; the same "
            'way, toward, away; "too fast"), open-vocabulary word tables, and event tables in '
            'everyday English ("If the kettle is whistling, choose A; if the dog barks, choose B."). '
            "Loss: masked diffusion on the answer slot (the letter, `<|im_end|>`, `<|endoftext|>`).",
            "- ",
        )
    )
    L.append(
        _wrap(
            "Held out: no 6-word window of the built-in tasks' rules, options and status sentences, or "
            "of their hand rephrasings, is ever generated (`train/common/heldout/`), and 10 % of the "
            'dictionary words never appear in training (the "unseen words" row below).',
            "- ",
        )
    )
    steps = "; ".join(f"{w} {n:,} steps ({m:.1f} min)" for w, n, m in f["phases"])
    if f["spread"]:
        steps = steps.replace("; polish", "; the unread embeddings spread; polish")
    L.append(
        _wrap(
            f"Phases: {steps}. PyTorch on the CPUs of a 2-core AMD EPYC VM (the last phase on "
            f"{f['how']}): {f['wall_min']:.0f} minutes of wall time"
            + (
                " with the two branches in parallel"
                if any(w == "word branch" for w, _, _ in f["phases"])
                else ""
            )
            + f", {f['all_min']:.0f} minutes of training in all. Recipe: `{f['recipe']}`.",
            "- ",
        )
    )
    L += ["", "## Measured how well", ""]
    L.append(
        _wrap(
            f"`train/nano/eval_table.py`: stage {ev['info']['stage']} eval stream, {ev['info']['tables']} "
            "tables a synthetic row, SE the standard error with tables as the unit; the built-in rows "
            "through the C++ runtime."
        )
    )
    L += ["", "| measure | n | accuracy | chance | target | met |", "| --- | --- | --- | --- | --- | --- |"]
    exams = [r for r in rows if r["name"].startswith("exam: ")]
    for r in rows:
        if r in exams:
            if r is exams[0]:  # the five exams as one row
                n, right = sum(e["n"] for e in exams), sum(e["n"] - (e.get("misses") or 0) for e in exams)
                missed = sum(e.get("misses") or 0 for e in exams)
                L.append(
                    f"| built-in exams ({len(exams)} tasks) | {n} | {right}/{n} ({missed} missed) | | "
                    f"0 misses each | {'yes' if all(e['pass'] for e in exams) else 'no'} |"
                )
            continue
        acc = f"{r['accuracy']:.3f}" + (
            f" (SE {r['se']:.3f})" if r.get("se") is not None and r["se"] == r["se"] else ""
        )
        ch = f"{r['chance']:.3f}" if r.get("chance") is not None else ""
        tgt = "0 misses" if r.get("target_kind") == "max_misses" else f">= {r['target']:g}"
        L.append(f"| {r['name']} | {r['n']} | {acc} | {ch} | {tgt} | {'yes' if r['pass'] else 'no'} |")
        for kind, k in r.get("by_kind", {}).items():
            L.append(f"| · {kind} tables | {k['n']} | {k['accuracy']:.3f} | {k['chance']:.3f} | | |")
    L += [
        "",
        _wrap(
            "Episodes (`meadow-mind play TASK --episodes N`, the tasks' fixed seeds, every step one model "
            "decision):"
        ),
        "",
        "| task | verdict | target met |",
        "| --- | --- | --- |",
    ]
    for t in TASKS:
        L.append(f"| {t} | {f['plays'].get(t, 'not run')} | {'yes' if f['met'].get(t) else 'no'} |")
    L.append("")
    if f["tests"]:
        L.append(
            _wrap(
                "Relabelling tests (`tests/mind/trained_model_test.cpp`, the letters of each table moved "
                "three ways; 90 % must follow the rule and keep their option): "
                + ", ".join(f"{k} {'pass' if ok else 'fail'}" for k, ok in f["tests"].items())
                + "."
            )
        )
        L.append("")
    b = f["bench"]
    if b.get("tasks"):
        v = b["tasks"].values()
        L.append(
            _wrap(
                f"Speed (`meadow-mind bench --threads {b['threads']}`, {b['machine']}, "
                f"{b['decisions_per_task']} decisions per task): cached p50 "
                f"{_span([x['cached']['p50_ms'] for x in v], '{:.1f}')} ms (p95 at most "
                f"{max(x['cached']['p95_ms'] for x in v):.1f}), uncached p50 "
                f"{_span([x['uncached']['p50_ms'] for x in v], '{:.1f}')} ms; a task's first decision, "
                f"which encodes the prefix, {_span([x['first_with_prefix_ms'] for x in v], '{:.1f}')} ms."
            )
        )
        L.append("")
    L += ["## Limits", ""]
    missed = [r["name"] for r in rows if not r["pass"]] + [t for t in TASKS if not f["met"].get(t)]
    if missed:
        L.append(
            _wrap(
                "Not met: " + ", ".join(missed) + " (the tables above say by how much; the end-to-end "
                "tests skip those by name, `models/meadow-nano.targets.json`).",
                "- ",
            )
        )
    L.append(
        _wrap(
            'It reads the register it was trained on (directions, "too fast", "toward the X", '
            'event clauses). Rules in the forms people write (if/when/means, tables, "unless", '
            "thresholds, options named by their text) it reads barely above chance: `meadow-mind "
            "reading` and `docs/measurements.md` have the numbers. Write a new task's rule in this "
            "register and let its exam tell you.",
            "- ",
        )
    )
    kinds = {kind: k["accuracy"] for r in rows[:1] for kind, k in r.get("by_kind", {}).items()}
    if kinds.get("match", 1) < kinds.get("scene", 0):
        L.append(
            _wrap(
                "Open-vocabulary word tables (conditions of random English words) are read less surely "
                f"than scenes: {kinds['match']:.3f} against {kinds['scene']:.3f} on the held-out row.",
                "- ",
            )
        )
    at_chance = sorted(
        {
            f"{kind} tables in {r['name']} ({k['accuracy']:.3f}, chance {k['chance']:.3f})"
            for r in rows
            for kind, k in r.get("by_kind", {}).items()
            if k["n"] and k["accuracy"] < k["chance"] + 0.05
        }
    )
    if at_chance:
        L.append(_wrap("At chance (within 0.05): " + "; ".join(at_chance) + ".", "- "))
    L.append(
        _wrap(
            'A clause that names its option by the option\'s text ("If X, push right.") is read less '
            'surely than one that names its letter ("If X, choose C."), so the built-in rules name '
            "letters. Trained on tables of at most 6 options, lettered from A-F.",
            "- ",
        )
    )
    L.append(
        _wrap(
            "The rephrasing row is no blind measure: later corpus stages were written after reading "
            "its misses (`docs/training-sessions.md`, session 17).",
            "- ",
        )
    )
    return "\n".join(L) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ckpt", required=True)
    ap.add_argument("--gguf", required=True)
    ap.add_argument("--eval", required=True)
    ap.add_argument("--bench", required=True)
    ap.add_argument("--plays", required=True)
    ap.add_argument("--relabelling", help="output of test_mind --gtest_filter='TrainedModel.*' on this model")
    ap.add_argument("--recipe", default="train/nano/recipe.py")
    ap.add_argument(
        "--lineage", default="", help="free text: how this checkpoint was trained, if not the recipe alone"
    )
    ap.add_argument("--out", default=RECORD, help="the full record (default %(default)s)")
    ap.add_argument("--card", help=f"the short card (default {CARD} when --out is its default)")
    ap.add_argument("--targets", default="models/meadow-nano.targets.json")
    a = ap.parse_args(argv)

    import torch

    st = torch.load(a.ckpt, map_location="cpu")
    c = st["config"]
    from .model import Config, DreamModel

    n_params = DreamModel(Config(**c)).n_params()
    ev = json.load(open(a.eval))
    bench = json.load(open(a.bench))
    plays = {}
    for line in open(a.plays):
        if ":" in line:
            k, v = line.split(":", 1)
            plays[k.strip()] = v.strip()
    size = os.path.getsize(a.gguf)
    counters = _counters(st)

    rows = ev["rows"]
    exam = {r["name"].split(": ", 1)[1]: r for r in rows if r["name"].startswith("exam: ")}
    met = {}
    for t in TASKS:
        v = plays.get(t, "")
        # the task's own exam rule (mind.check: at most one miss, as the e2e tests run it), not
        # the evaluation table's zero-miss bar, which the card reports on its own row
        met[t] = exam.get(t, {}).get("misses", 99) <= 1 and v.startswith("PASS")
    relabel = [r for r in rows if r["name"].startswith("relabelling")]
    met["relabelling"] = all(r["pass"] for r in relabel) if relabel else False
    tests_ok = {}
    if a.relabelling:
        for line in open(a.relabelling):
            for mark, ok in (("[       OK ] TrainedModel.", True), ("[  FAILED  ] TrainedModel.", False)):
                if line.startswith(mark):
                    tests_ok[line[len(mark) :].split()[0]] = ok
    # the C++ relabelling tests (general tables / scene-register tables) gate the claims too
    met["relabelling"] = met["relabelling"] and tests_ok.get("RelabellingTheOptionsRelabelsTheChoice", False)
    met["relabelling_scenes"] = tests_ok.get("RelabellingSceneTablesRelabelsTheChoice", False)

    tok_path = st.get("tokenizer") or "vocab.json"
    folded = os.path.exists(tok_path) and Tokenizer.load(tok_path).fold
    L = []
    L.append("# meadow-nano — how it was trained and measured\n")
    L.append(
        "The full record behind `models/MODEL_CARD.md`, the card of `models/meadow-nano.gguf` "
        "(the model `meadow-mind` uses when no other is configured): a small masked-diffusion "
        "transformer trained from scratch in this repository (issue 4) to read a rule table and a "
        "situation sentence and answer the option letter. Numbers below are generated by "
        "`train/nano/model_card.py` from the measurements named in each section; nothing is typed by "
        "hand. The sessions that led here are `docs/lab-notebook.md` and `docs/training-sessions.md`.\n"
    )
    L.append("## Architecture\n")
    L.append(
        f"- `dream` (Qwen2 layout, bidirectional attention, shifted logits, mask token), "
        f"{c['layers']} layers, width {c['dim']}, {c['heads']} heads / {c['kv_heads']} KV heads "
        f"(head dim {c['dim'] // c['heads']}), SwiGLU FFN {c['ffn']}, RoPE base {c['rope_theta']:g}, "
        f"tied embeddings, vocabulary {c['vocab']} (byte-level BPE trained on the corpus, "
        f"`train/nano/tokenizer/{os.path.basename(tok_path)}`, ChatML specials and `<|mask|>`"
        + ("; words case-folded before BPE, `meadow.tokenizer.fold_case`" if folded else "")
        + ")."
    )
    L.append(f"- Parameters: {n_params:,}. File: {size:,} bytes (F32; the 16 MB budget leaves room).")
    L.append(
        "- Prompt: the runtime's chat layout (`docs/prompt-contract.md`); the rule, options and "
        "system prompt form a prefix that attends only to itself, so the runtime caches it and a "
        "decision runs only the situation's tokens.\n"
    )
    parents = st.get("parents")  # a joined model (stitch.py): the scene half, the word half
    L.append("## Data\n")
    intro = "Procedural corpus (`train/nano/corpus/`), deterministic from a seed."
    if parents:
        intro += " The model is two branches trained apart, then joined (phase `joint`)."
    post = [POST_DATA] if (st.get("counters") or {}).get("74") else []
    L.append(" ".join([intro, SCENES_DATA] + ([WORDS_DATA] if parents else []) + post + [HELD_OUT]) + "\n")
    batch = st["args"]["batch"]
    if parents:
        a_c, b_c = (_counters(parents[k]) for k in ("a", "b"))
        joint_c = {k: v - b_c.get(k, 0) for k, v in counters.items() if v - b_c.get(k, 0)}
        L.append(
            f"Tables seen (batch {batch} tables of 4-12 situations): scene branch: {_stages(a_c)}; "
            f"word branch: {_stages(b_c)}; joint fine-tune: {_stages(joint_c)}.\n"
        )
    else:
        L.append(f"Tables seen: {_stages(counters)} (batch {batch} tables of 4-12 situations).\n")
    L.append("## Training\n")
    args = st["args"]
    lr_note = f"lr {args['lr']:g} at the last invocation"
    if args.get("lr2"):
        lr_note += f", then {args['lr2']:g} once an eval reaches {args.get('lr2_acc', 0):g}"
    if args.get("anneal"):
        lo, hi = args["anneal"]
        lr_note += f", falling linearly to 5 % of it from step {lo:,} to {hi:,}"
    common = (
        "PyTorch (Debian `python3-torch`), AdamW; masked-diffusion loss on the answer slot (1-3 "
        "masks: letter, `<|im_end|>`, `<|endoftext|>`)"
    )
    vm = "a 2-core AMD EPYC VM (AVX-512)"
    how = _how(args)
    where = f"{how} (`OPENBLAS_NUM_THREADS=1`) on {vm}"
    sp = st.get("spread")
    phases = []  # (what, steps, minutes) for the short card
    # a polish (phase polish) trains on after the spread: its steps and minutes are told apart
    polished = bool(sp and sp.get("step") is not None and st["step"] > sp["step"])
    polish_min = (st["elapsed_s"] - sp["elapsed_s"]) / 60 if polished else 0.0
    if parents:
        pa, pb = parents["a"], parents["b"]
        joint_end, joint_s = (sp["step"], sp["elapsed_s"]) if polished else (st["step"], st["elapsed_s"])
        joint_min = (joint_s - (pb["elapsed_s"] or 0)) / 60
        L.append(
            f"- Scene branch (phase `scenes`): {_shape(pa['config'])}, {pa['step']:,} steps, "
            f"{pa['elapsed_s'] / 60:.1f} minutes, final stage {pa['stage']}."
        )
        phases += [
            ("scene branch", pa["step"], pa["elapsed_s"] / 60),
            ("word branch", pb["step"], pb["elapsed_s"] / 60),
            ("joint fine-tune", joint_end - pb["step"], joint_min),
        ]
        L.append(
            f"- Word branch (phase `words`): {_shape(pb['config'])}, {pb['step']:,} steps, "
            f"{pb['elapsed_s'] / 60:.1f} minutes, final stage {pb['stage']}."
        )
        L.append(
            f"- Joint fine-tune (phase `joint`): {joint_end - pb['step']:,} steps, {joint_min:.1f} "
            f"minutes" + ("" if polished else f", {lr_note}; stage {st['stage']}") + "."
        )
        soup = (st.get("soup") or {}).get("branches") or []
        soup_wall = soup_all = 0.0
        if soup:
            # the soup's branches run two at a time (one per core) after the joint's last phase
            waves = [soup[i : i + 2] for i in range(0, len(soup), 2)]
            soup_wall = sum(max(b["elapsed_s"] for b in w) for w in waves) / 60
            soup_all = sum(b["elapsed_s"] for b in soup) / 60
            branch_list = ", ".join(f"stage {b['stage']}, {b['steps']:,} steps" for b in soup)
            phases.append(("soup", sum(b["steps"] for b in soup), soup_all))
            L.append(
                f"- Soup: {len(soup)} fine-tunes of the joint's last step "
                f"({branch_list}), "
                f"{soup_all:.1f} minutes in all, {soup_wall:.1f} of wall time two at a time; the model is the mean "
                f"of the last step's weights and theirs (`train/nano/average.py`)."
            )
        wall_min = max(pa["elapsed_s"], pb["elapsed_s"]) / 60 + joint_min + soup_wall + polish_min
        all_min = (pa["elapsed_s"] + st["elapsed_s"]) / 60 + soup_all
        L.append(
            f"- The scene branch on {_how(pa.get('how') or {})}; the word branch on {_how(pb.get('how') or {})}"
            f" (each its last invocation's settings); the joint fine-tune on {how} (its last "
            f"invocation's settings, the stages' `bf16` / `threads` flags); `OPENBLAS_NUM_THREADS=1` on {vm}; "
            f"{common}. Wall time: "
            f"{wall_min:.0f} minutes with "
            f"the branches run "
            f"in parallel (one per core, as `train/nano/run_recipe.py` does), "
            f"{all_min:.0f} minutes of training in all."
        )
    else:
        wall_min = all_min = st["elapsed_s"] / 60
        phases.append(("training", st["step"], all_min))
        L.append(
            f"- {st['step']:,} steps, {st['elapsed_s'] / 60:.1f} minutes of wall time summed over resumed "
            f"invocations, {where} shared with a second training run; {common}; {lr_note}; curriculum "
            f"promotion at eval accuracy {st['args']['promote']:g}; final stage {st['stage']}."
        )
    if sp:
        L.append(
            f"- Then `train/nano/spread_unread.py` (no training, seconds): the embeddings of the {sp['unread']} "
            f"merged tokens that no sampled training text holds ({sp['stages']} trained stages x "
            f"{sp['per_stage']} examples) are mapped onto the mean and spread of the {sp['read']} well-read "
            f"ones, so that words the training never saw stay distinct from each other."
        )
    if polished:
        read = " with the read softmax (unread rows get no gradient)" if args.get("read_softmax") else ""
        phases.append(("polish", st["step"] - sp["step"], polish_min))
        L.append(
            f"- Then the polish (phase `polish`): {st['step'] - sp['step']:,} steps{read}, "
            f"{polish_min:.1f} minutes on {how}, {lr_note}; stage {st['stage']}."
        )
        kept = sorted((st.get("soup") or {}).get("steps") or [])
        if len(kept) > 1 and kept[0] > sp["step"]:  # a mean of the polish's own checkpoints
            at = ", ".join(f"{k - sp['step']:,}" for k in kept)
            then = (
                f", then the `events` phase's cycles from that mean to step {st['step']:,}"
                if st["step"] > kept[-1]
                else ""
            )
            L.append(
                f"- The model is the mean of the polish's checkpoints at steps {at} after the spread "
                f"(its `soup` stage, `train/nano/average.py`){then}."
            )
    L.append(
        f"- Recipe: `{a.recipe}`, run by `python3 -m train.nano.run_recipe` (resumable; rerun to continue)."
    )
    if a.lineage:
        L.append(f"- This checkpoint's lineage: {a.lineage}")
    L.append("")
    L.append("## Evaluation\n")
    L.append(
        f"`train/nano/eval_table.py` (stage {ev['info']['stage']} eval stream, {ev['info']['tables']} tables per "
        f"synthetic row, every situation stating one condition; SE: the standard error with tables as the "
        f"sampled unit; built-in rows through the C++ runtime; "
        f"{ev['info']['seconds']:.0f} s):\n"
    )
    L.append("| name | n | accuracy | chance | target | met |")
    L.append("| --- | --- | --- | --- | --- | --- |")
    for r in rows:
        ch = f"{r['chance']:.3f}" if r.get("chance") is not None else ""
        acc = f"{r['accuracy']:.3f}" + (f" ({r['misses']} missed)" if r.get("misses") is not None else "")
        if r.get("se") is not None and r["se"] == r["se"]:  # per-table standard error (eval_table.table_se)
            acc += f" (SE {r['se']:.3f})"
        tgt = "0 misses" if r.get("target_kind") == "max_misses" else f">= {r['target']:g}"
        L.append(f"| {r['name']} | {r['n']} | {acc} | {ch} | {tgt} | {'yes' if r['pass'] else 'no'} |")
        for kind, k in r.get("by_kind", {}).items():  # a mean can hide a kind at chance
            L.append(f"| · of which {kind} tables | {k['n']} | {k['accuracy']:.3f} | {k['chance']:.3f} | | |")
    L.append("")
    L.append(
        "Episodes (`meadow-mind play TASK --model models/meadow-nano.gguf --episodes N` with the "
        "tasks' fixed seeds; every step is one model decision):\n"
    )
    L.append("| task | verdict | target met |")
    L.append("| --- | --- | --- |")
    for t in TASKS:
        L.append(f"| {t} | {plays.get(t, 'not run')} | {'yes' if met[t] else 'no'} |")
    L.append("")
    if tests_ok:
        L.append(
            "Relabelling tests (`tests/mind/trained_model_test.cpp`: each table decided under the "
            "letters ABC, CAB, BCA and DFE; the chosen option must follow the rule in 90 % of the "
            "decisions and stay the same under relabelling in 90 %):\n"
        )
        for name, ok in tests_ok.items():
            L.append(f"- {name}: {'pass' if ok else 'fail'}")
        L.append("")
    L.append("## Speed\n")
    L.append(
        f"`meadow-mind bench --threads {bench['threads']}` ({bench['machine']}), "
        f"{bench['decisions_per_task']} decisions per task and mode, latency of the decision pass:\n"
    )
    L.append(
        "| task | cached p50 ms | cached p95 ms | uncached p50 ms | uncached p95 ms | first (encodes prefix) ms |"
    )
    L.append("| --- | --- | --- | --- | --- | --- |")
    for t, v in bench["tasks"].items():
        L.append(
            f"| {t} | {v['cached']['p50_ms']:.3f} | {v['cached']['p95_ms']:.3f} | {v['uncached']['p50_ms']:.3f} "
            f"| {v['uncached']['p95_ms']:.3f} | {v['first_with_prefix_ms']:.2f} |"
        )
    L.append("")
    L.append("## Limits\n")
    reph = next((r for r in rows if r["name"].startswith("rephrasing")), None)
    reworded = (
        "situations reworded by hand are still below their bar"
        if reph and not reph.get("pass")
        else "situations reworded by hand are read less surely than the exams' own sentences, and "
        "the rephrasings are no blind measure: later corpus stages were written after reading "
        "their misses (docs/training-sessions.md, session 17)"
    )
    L.append(
        'Targets marked "no" above are not met (the rows say by how much); '
        "`models/meadow-nano.targets.json` records the end-to-end ones and the tests skip those by "
        'name. The model is at its best in the scene register it was trained on (directions, "too '
        f'fast", "toward the X"); {reworded}. A clause that '
        'names its option by the option\'s text ("If X, push right.") is read less surely than one that '
        'names its letter ("If X, choose C."; `train/nano/diag/exam_torch.py --skills` measures both lookups), '
        "so the built-in tasks' clauses name letters.\n"
    )
    at_chance = sorted(
        {
            f"{kind} tables ({r['name']}: {k['accuracy']:.3f}, chance {k['chance']:.3f})"
            for r in rows
            for kind, k in r.get("by_kind", {}).items()
            if k["n"] and k["accuracy"] < k["chance"] + 0.05
        }
    )
    if at_chance:
        why = (
            ' "match" tables are the open-vocabulary word tables (`corpus/tables.py`): conditions of '
            "random English words."
            if any(x.startswith("match ") for x in at_chance)
            else ""
        )
        L.append(
            "At chance (within 0.05): " + "; ".join(at_chance) + "." + why + " The row means above are "
            "carried by the other kinds.\n"
        )
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w") as f:
        f.write("\n".join(L))
    card = a.card or (CARD if a.out == RECORD else None)
    if card:
        facts = {
            "arch": {k: c[k] for k in ("layers", "dim", "heads", "kv_heads", "ffn", "vocab")},
            "params": n_params,
            "bytes": size,
            "phases": phases,
            "wall_min": wall_min,
            "all_min": all_min,
            "how": how,
            "spread": bool(sp),
            "recipe": a.recipe,
            "eval": ev,
            "plays": plays,
            "met": met,
            "bench": bench,
            "tests": tests_ok,
            "record": a.out,
        }
        with open(card, "w") as f:
            f.write(short_card(facts))
    with open(a.targets, "w") as f:
        json.dump(
            {
                "about": "Which end-to-end targets the shipped models/meadow-nano.gguf meets, as measured "
                "(train/nano/model_card.py writes this with models/MODEL_CARD.md). Tests assert the claimed "
                "ones and skip the others by name.",
                "met": met,
            },
            f,
            indent=2,
        )
        f.write("\n")
    print(f"wrote {a.out}{', ' + card if card else ''} and {a.targets}: met {met}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
