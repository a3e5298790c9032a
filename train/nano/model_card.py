"""meadow-nano's card and its full record, filled from measurements so neither states a number by
hand: models/MODEL_CARD.md (`model_card.md` beside this file: what, trained how, measured how
well, limits, in two screens) and docs/meadow-nano-record.md (`model_record.md`: the data, every
stage's tables, every training phase, the whole evaluation and bench tables). The prose is those
two Markdown templates; this file gathers the measured facts and fills them in.

    python3 -m train.nano.model_card --ckpt RUN/ckpt.pt --gguf models/meadow-nano.gguf \
        --eval RUN/eval.json --bench RUN/bench.json --plays RUN/plays.txt [--relabelling FILE]
    python3 -m train.nano.model_card --facts models/meadow-nano.measured.json   # refill, no torch
    python3 -m train.nano.model_card --facts models/meadow-nano.measured.json --bench NEW.json

Inputs: the checkpoint (architecture, steps, training time, curriculum counters), the GGUF
(size), eval_table.py's --json, `meadow-mind bench` JSON, the verdict lines of `meadow-mind play
TASK` for the built-in tasks (plays.txt, one "task: verdict" per line) and test_mind's
TrainedModel output. They are gathered into one JSON of facts, from which the card, the record
and models/meadow-nano.targets.json (which end-to-end targets are met; the end-to-end tests
assert the claimed ones) are written. With `--out` left at its default, the card goes to
models/MODEL_CARD.md and gathered facts to models/meadow-nano.measured.json (else only where
`--card`, `--facts-out` say). `--facts F --bench NEW.json` puts a new bench of the same model
into F and refills the cards (the speed lines).

Templates: `$name` is a value (`values()` lists them); `<!-- if NAME -->`, `<!-- if not NAME -->`,
`<!-- else -->`, `<!-- end -->` keep or drop text (a marker alone on its line takes the line with
it). After filling, every paragraph and list item is reflowed: to 100 columns in the card, to
one line in the record; headings and tables are kept as they are.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import string
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
TASKS = ("cartpole", "mountaincar", "frozenlake", "lunarlander", "maze")
CARD = "models/MODEL_CARD.md"
RECORD = "docs/meadow-nano-record.md"
FACTS = "models/meadow-nano.measured.json"
TARGETS = "models/meadow-nano.targets.json"
# the training arguments the card reads (the checkpoint's last train.py invocation)
ARGS = (
    "batch",
    "lr",
    "lr2",
    "lr2_acc",
    "anneal",
    "promote",
    "threads",
    "threads_later",
    "bf16",
    "read_softmax",
)

# --- templates -------------------------------------------------------------------------------

_MARK = re.compile(r"<!-- (if not \w+|if \w+|else|end) -->")


def _conditionals(text: str, flags: dict) -> str:
    text = re.sub(r"(?m)^[ \t]*(<!-- (?:if not \w+|if \w+|else|end) -->)[ \t]*\n", r"\1", text)
    parts = _MARK.split(text)  # text, marker, text, marker, ...
    out, stack = [], []  # stack: (keep the enclosing text, keep this branch)
    keep = True
    for i, part in enumerate(parts):
        if i % 2 == 0:
            if keep:
                out.append(part)
        elif part.startswith("if"):
            name = part.split()[-1]
            stack.append((keep, bool(flags.get(name)) != part.startswith("if not ")))
            keep = keep and stack[-1][1]
        elif not stack:
            raise ValueError(f"template: <!-- {part} --> without an if")
        elif part == "else":
            outer, branch = stack[-1]
            keep = outer and not branch
        else:
            keep = stack.pop()[0]
    if stack:
        raise ValueError("template: an <!-- if --> without its <!-- end -->")
    return "".join(out)


def _reflow(block: str, width: int | None) -> str:
    lines = block.splitlines()
    if all(x.startswith(("|", "#")) for x in lines):
        return block
    items, prefix = [], ""
    if lines[0].startswith("- "):  # a list: each item starts with "- "
        prefix = "- "
        for x in lines:
            if x.startswith("- ") or not items:
                items.append(x[2:])
            else:
                items[-1] += " " + x
    else:
        items = [" ".join(lines)]
    out = []
    for item in items:
        text = " ".join(item.split())
        if width is None:
            out.append(prefix + text)
        else:
            out.append(
                textwrap.fill(
                    text,
                    width,
                    initial_indent=prefix,
                    subsequent_indent=" " * len(prefix),
                    break_long_words=False,
                    break_on_hyphens=False,
                )
            )
    return "\n".join(out)


def fill(template: str, vals: dict, width: int | None) -> str:
    """The template with its conditionals resolved, `$names` substituted (a missing one is an
    error) and its prose reflowed to `width` columns (None: one line a paragraph)."""
    text = string.Template(_conditionals(template, vals)).substitute(vals)
    blocks = [b.strip("\n") for b in re.split(r"\n[ \t]*\n", text)]
    return "\n\n".join(_reflow(b, width) for b in blocks if b.strip()) + "\n"


def template(name: str) -> str:
    with open(os.path.join(HERE, name)) as f:
        return f.read()


# --- values ----------------------------------------------------------------------------------


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
    """Tables trained per stage, keyed by the stage's seed (its number before the stages were named)."""
    from .corpus.curriculum import stage

    return {stage(k).seed: v for k, v in (st.get("counters") or {}).items()}


def _stages(counters: dict) -> str:
    return ", ".join(f"stage {k}: {v} tables" for k, v in sorted(counters.items()))


def _span(values, fmt) -> str:
    """ "1.5-1.8" for the range of some numbers, "1.5" when they agree."""
    lo, hi = fmt.format(min(values)), fmt.format(max(values))
    return lo if lo == hi else f"{lo}-{hi}"


def _se(r: dict) -> str:
    se = r.get("se")
    return f" (SE {se:.3f})" if se is not None and se == se else ""  # NaN: no standard error


def _target(r: dict) -> str:
    return "0 misses" if r.get("target_kind") == "max_misses" else f">= {r['target']:g}"


def _yes(ok) -> str:
    return "yes" if ok else "no"


def met(facts: dict) -> dict:
    """Which end-to-end targets are met: each task's own exam rule (at most one miss, as the e2e
    tests run it) and its episodes; the relabelling rows and the C++ relabelling tests."""
    rows, plays, tests = facts["eval"]["rows"], facts["plays"], facts.get("relabelling_tests") or {}
    exam = {r["name"].split(": ", 1)[1]: r for r in rows if r["name"].startswith("exam: ")}
    m = {t: exam.get(t, {}).get("misses", 99) <= 1 and plays.get(t, "").startswith("PASS") for t in TASKS}
    relabel = [r for r in rows if r["name"].startswith("relabelling")]
    m["relabelling"] = bool(relabel) and all(r["pass"] for r in relabel)
    m["relabelling"] = m["relabelling"] and tests.get("RelabellingTheOptionsRelabelsTheChoice", False)
    m["relabelling_scenes"] = tests.get("RelabellingSceneTablesRelabelsTheChoice", False)
    return m


def _training(t: dict) -> tuple[dict, list]:
    """The record's Training values, and the card's phases: (what, steps, minutes)."""
    args, parents, sp = t["args"], t.get("parents"), t.get("spread")
    lr_note = f"lr {args['lr']:g} at the last invocation"
    if args.get("lr2"):
        lr_note += f", then {args['lr2']:g} once an eval reaches {args.get('lr2_acc', 0):g}"
    if args.get("anneal"):
        lo, hi = args["anneal"]
        lr_note += f", falling linearly to 5 % of it from step {lo:,} to {hi:,}"
    # a polish (phase polish) trains on after the spread: its steps and minutes are told apart
    polished = bool(sp and sp.get("step") is not None and t["step"] > sp["step"])
    polish_min = (t["elapsed_s"] - sp["elapsed_s"]) / 60 if polished else 0.0
    v = dict(lr_note=lr_note, how=_how(args), polished=polished, spread=bool(sp), branches=bool(parents))
    v.update(steps=f"{t['step']:,}", stage=t["stage"], promote=f"{args.get('promote', 0):g}")
    v.update(
        minutes=f"{t['elapsed_s'] / 60:.1f}",
        read_softmax=bool(args.get("read_softmax")),
        step=f"{t['step']:,}",
    )
    phases = []
    soup = (t.get("soup") or {}).get("branches") or []
    if parents:
        pa, pb = parents["a"], parents["b"]
        joint_end, joint_s = (sp["step"], sp["elapsed_s"]) if polished else (t["step"], t["elapsed_s"])
        joint_min = (joint_s - (pb["elapsed_s"] or 0)) / 60
        for k, p in (("scene", pa), ("word", pb)):
            v.update(
                {f"{k}_shape": f"{p['config']['dim']} x {p['config']['layers']}", f"{k}_stage": p["stage"]}
            )
            v.update({f"{k}_steps": f"{p['step']:,}", f"{k}_min": f"{p['elapsed_s'] / 60:.1f}"})
            v[f"{k}_how"] = _how(p.get("how") or {})
        v.update(joint_steps=f"{joint_end - pb['step']:,}", joint_min=f"{joint_min:.1f}")
        phases += [
            ("scene branch", pa["step"], pa["elapsed_s"] / 60),
            ("word branch", pb["step"], pb["elapsed_s"] / 60),
            ("joint fine-tune", joint_end - pb["step"], joint_min),
        ]
        # the soup's branches run two at a time (one per core) after the joint's last phase
        waves = [soup[i : i + 2] for i in range(0, len(soup), 2)]
        soup_wall = sum(max(b["elapsed_s"] for b in w) for w in waves) / 60
        soup_all = sum(b["elapsed_s"] for b in soup) / 60
        if soup:
            phases.append(("soup", sum(b["steps"] for b in soup), soup_all))
        v.update(soup_branches=bool(soup), soup_count=len(soup), soup_all_min=f"{soup_all:.1f}")
        v.update(soup_wall_min=f"{soup_wall:.1f}")
        v["soup_list"] = ", ".join(f"stage {b['stage']}, {b['steps']:,} steps" for b in soup)
        wall_min = max(pa["elapsed_s"], pb["elapsed_s"]) / 60 + joint_min + soup_wall + polish_min
        all_min = (pa["elapsed_s"] + t["elapsed_s"]) / 60 + soup_all
    else:
        wall_min = all_min = t["elapsed_s"] / 60
        phases.append(("training", t["step"], all_min))
    if sp:
        v.update(unread=sp["unread"], spread_stages=sp["stages"], per_stage=sp["per_stage"], read=sp["read"])
    if polished:
        phases.append(("polish", t["step"] - sp["step"], polish_min))
        v.update(polish_steps=f"{t['step'] - sp['step']:,}", polish_min=f"{polish_min:.1f}")
        kept = sorted((t.get("soup") or {}).get("steps") or [])
        v["polish_soup"] = len(kept) > 1 and kept[0] > sp["step"]  # a mean of the polish's own checkpoints
        v["soup_at"] = ", ".join(f"{k - sp['step']:,}" for k in kept)
        v["after_soup"] = bool(kept) and t["step"] > kept[-1]
    v.update(wall_min=f"{wall_min:.0f}", all_min=f"{all_min:.0f}")
    return v, phases


def _row(r: dict, name: str, acc: str) -> str:
    ch = f"{r['chance']:.3f}" if r.get("chance") is not None else ""
    return f"| {name} | {r['n']} | {acc} | {ch} | {_target(r)} | {_yes(r['pass'])} |"


def _kind_row(name: str, k: dict) -> str:
    return f"| {name} | {k['n']} | {k['accuracy']:.3f} | {k['chance']:.3f} | | |"


def _eval_values(rows: list, plays: dict, ok: dict, tests: dict) -> dict:
    """The evaluation tables: the record's row by row (every kind), the card's with the built-in
    exams as one row; the episodes; the relabelling tests."""
    rec, card = [], []
    exams = [r for r in rows if r["name"].startswith("exam: ")]
    for r in rows:
        misses = f" ({r['misses']} missed)" if r.get("misses") is not None else ""
        rec.append(_row(r, r["name"], f"{r['accuracy']:.3f}{misses}{_se(r)}"))
        # a mean can hide a kind at chance
        rec += [_kind_row(f"· of which {kind} tables", k) for kind, k in r.get("by_kind", {}).items()]
        if exams and r is exams[0]:
            n, missed = sum(e["n"] for e in exams), sum(e.get("misses") or 0 for e in exams)
            card.append(
                f"| built-in exams ({len(exams)} tasks) | {n} | {n - missed}/{n} ({missed} missed) | | "
                f"0 misses each | {_yes(all(e['pass'] for e in exams))} |"
            )
        if r not in exams:
            card.append(_row(r, r["name"], f"{r['accuracy']:.3f}{_se(r)}"))
            card += [_kind_row(f"· {kind} tables", k) for kind, k in r.get("by_kind", {}).items()]
    verdicts = {k: "pass" if p else "fail" for k, p in tests.items()}
    return {
        "record_eval_rows": "\n".join(rec),
        "card_eval_rows": "\n".join(card),
        "play_rows": "\n".join(f"| {x} | {plays.get(x, 'not run')} | {_yes(ok.get(x))} |" for x in TASKS),
        "tests": bool(tests),
        "tests_inline": ", ".join(f"{k} {p}" for k, p in verdicts.items()),
        "tests_items": "\n".join(f"- {k}: {p}" for k, p in verdicts.items()),
    }


def _bench_values(bench: dict) -> dict:
    bt = bench.get("tasks") or {}
    v = {"bench": bool(bt), "bench_threads": bench.get("threads"), "bench_machine": bench.get("machine")}
    v["bench_decisions"] = bench.get("decisions_per_task")
    if bt:
        b = bt.values()
        v["cached_p50"] = _span([x["cached"]["p50_ms"] for x in b], "{:.1f}")
        v["cached_p95_max"] = f"{max(x['cached']['p95_ms'] for x in b):.1f}"
        v["uncached_p50"] = _span([x["uncached"]["p50_ms"] for x in b], "{:.1f}")
        v["first_ms"] = _span([x["first_with_prefix_ms"] for x in b], "{:.1f}")
    v["bench_rows"] = "\n".join(
        f"| {k} | {x['cached']['p50_ms']:.3f} | {x['cached']['p95_ms']:.3f} | {x['uncached']['p50_ms']:.3f} "
        f"| {x['uncached']['p95_ms']:.3f} | {x['first_with_prefix_ms']:.2f} |"
        for k, x in bt.items()
    )
    return v


def _limit_values(rows: list, ok: dict) -> dict:
    v = {
        "not_met": ", ".join([r["name"] for r in rows if not r["pass"]] + [x for x in TASKS if not ok.get(x)])
    }
    kinds = {kind: k["accuracy"] for r in rows[:1] for kind, k in r.get("by_kind", {}).items()}
    v["match_below_scene"] = kinds.get("match", 1) < kinds.get("scene", 0)
    v["match_accuracy"] = f"{kinds.get('match', 0):.3f}"
    v["scene_accuracy"] = f"{kinds.get('scene', 0):.3f}"
    low = [
        (kind, r["name"], f"{k['accuracy']:.3f}", f"chance {k['chance']:.3f}")
        for r in rows
        for kind, k in r.get("by_kind", {}).items()
        if k["n"] and k["accuracy"] < k["chance"] + 0.05
    ]
    v["card_at_chance"] = "; ".join(sorted({f"{kd} tables in {nm} ({a}, {c})" for kd, nm, a, c in low}))
    v["record_at_chance"] = "; ".join(sorted({f"{kd} tables ({nm}: {a}, {c})" for kd, nm, a, c in low}))
    v["match_at_chance"] = any(kd == "match" for kd, *_ in low)
    reph = next((r for r in rows if r["name"].startswith("rephrasing")), None)
    v["rephrasing_below"] = bool(reph and not reph.get("pass"))
    return v


def values(facts: dict, record: str = RECORD, facts_path: str = FACTS) -> dict:
    """Every `$name` and flag of the two templates, from the measured facts."""
    m, t, ev, ok = facts["model"], facts["training"], facts["eval"], met(facts)
    c = m["config"]
    v = {k: c[k] for k in ("layers", "dim", "heads", "kv_heads", "ffn", "vocab")}
    v.update(head_dim=c["dim"] // c["heads"], rope_theta=f"{c['rope_theta']:g}", tokenizer=m["tokenizer"])
    v.update(fold_case=m.get("fold_case", False), params=f"{m['params']:,}", bytes=f"{m['bytes']:,}")
    v.update(record=record, facts=facts_path, recipe=facts["recipe"], lineage=facts.get("lineage") or "")
    v.update(eval_stage=ev["info"]["stage"], eval_tables=ev["info"]["tables"])
    v["eval_seconds"] = f"{ev['info'].get('seconds', 0):.0f}"
    train, phases = _training(t)
    v.update(train)
    v["batch"] = t["args"]["batch"]
    counters = _counters(t)
    v["events"] = bool(counters.get(74))  # the event cycles after the polish's mean ran
    v["tables"] = _stages(counters)
    if t.get("parents"):
        a_c, b_c = (_counters(t["parents"][k]) for k in ("a", "b"))
        v.update(scene_tables=_stages(a_c), word_tables=_stages(b_c))
        v["joint_tables"] = _stages({k: n - b_c.get(k, 0) for k, n in counters.items() if n - b_c.get(k, 0)})
    steps = "; ".join(f"{w} {n:,} steps ({mi:.1f} min)" for w, n, mi in phases)
    v["phases"] = (
        steps.replace("; polish", "; the unread embeddings spread; polish") if v["spread"] else steps
    )
    v.update(_eval_values(ev["rows"], facts["plays"], ok, facts.get("relabelling_tests") or {}))
    v.update(_bench_values(facts["bench"]))
    v.update(_limit_values(ev["rows"], ok))
    return v


def card(facts: dict, record: str = RECORD, facts_path: str = FACTS) -> str:
    """models/MODEL_CARD.md, at 100 columns."""
    v = values(facts, record, facts_path)
    v.update(eval_rows=v["card_eval_rows"], at_chance=v["card_at_chance"])
    return fill(template("model_card.md"), v, 100)


def record(facts: dict, facts_path: str = FACTS) -> str:
    """docs/meadow-nano-record.md, a paragraph a line."""
    v = values(facts, RECORD, facts_path)
    v.update(eval_rows=v["record_eval_rows"], at_chance=v["record_at_chance"])
    return fill(template("model_record.md"), v, None)


# --- gathering -------------------------------------------------------------------------------


def gather(a) -> dict:
    """The measured facts of a checkpoint and its measurements (plain JSON data)."""
    import torch

    from .model import Config, DreamModel
    from .tokenizer.bpe import Tokenizer

    st = torch.load(a.ckpt, map_location="cpu")
    tok = st.get("tokenizer") or "vocab.json"
    plays = {}
    for line in open(a.plays):
        if ":" in line:
            k, v = line.split(":", 1)
            plays[k.strip()] = v.strip()
    tests = {}
    for line in open(a.relabelling) if a.relabelling else ():
        for mark, ok in (("[       OK ] TrainedModel.", True), ("[  FAILED  ] TrainedModel.", False)):
            if line.startswith(mark):
                tests[line[len(mark) :].split()[0]] = ok
    parents = st.get("parents")  # a joined model (stitch.py): the scene half, the word half
    if parents:
        keep = ("config", "counters", "how", "step", "stage", "elapsed_s")
        parents = {k: {f: p.get(f) for f in keep} for k, p in parents.items()}
    return {
        "about": "What meadow-nano's card and record are filled from (train/nano/model_card.py): the "
        "checkpoint's architecture and training record, the GGUF's size, eval_table.py's rows, the "
        "episodes, the relabelling tests and the bench.",
        "model": {
            "config": st["config"],
            "params": DreamModel(Config(**st["config"])).n_params(),
            "bytes": os.path.getsize(a.gguf),
            "tokenizer": os.path.basename(tok),
            "fold_case": bool(os.path.exists(tok) and Tokenizer.load(tok).fold),
        },
        "training": {
            "step": st["step"],
            "stage": st["stage"],
            "elapsed_s": st["elapsed_s"],
            "counters": st.get("counters") or {},
            "args": {k: st["args"].get(k) for k in ARGS},
            "parents": parents,
            "spread": st.get("spread"),
            "soup": st.get("soup"),
        },
        "eval": json.load(open(a.eval)),
        "bench": json.load(open(a.bench)),
        "plays": plays,
        "relabelling_tests": tests,
        "recipe": a.recipe,
        "lineage": a.lineage,
    }


def _write(path: str, text: str) -> None:
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--facts", help="fill the cards from this facts JSON (no checkpoint, no torch)")
    ap.add_argument("--ckpt")
    ap.add_argument("--gguf")
    ap.add_argument("--eval")
    ap.add_argument("--bench", help="`meadow-mind bench` JSON (with --facts: replaces the facts' bench)")
    ap.add_argument("--plays")
    ap.add_argument("--relabelling", help="output of test_mind --gtest_filter='TrainedModel.*' on this model")
    ap.add_argument("--recipe", default="train/nano/recipe.py")
    ap.add_argument(
        "--lineage", default="", help="free text: how this checkpoint was trained, if not the recipe alone"
    )
    ap.add_argument("--out", default=RECORD, help="the full record (default %(default)s)")
    ap.add_argument("--card", help=f"the short card (default {CARD} when --out is its default)")
    ap.add_argument("--facts-out", help=f"the gathered facts (default {FACTS} when --out is its default)")
    ap.add_argument("--targets", default=TARGETS)
    a = ap.parse_args(argv)
    default = a.out == RECORD
    if a.facts:
        with open(a.facts) as f:
            facts = json.load(f)
        if a.bench:  # a new bench of the same model: into the facts, then the cards
            with open(a.bench) as f:
                facts["bench"] = json.load(f)
            a.facts_out = a.facts_out or a.facts
    else:
        missing = [k for k in ("ckpt", "gguf", "eval", "bench", "plays") if not getattr(a, k)]
        if missing:
            ap.error("without --facts, these are needed: " + ", ".join("--" + k for k in missing))
        facts = gather(a)
    facts_out = a.facts_out or (FACTS if default and not a.facts else None)
    if facts_out:
        _write(facts_out, json.dumps(facts, indent=2) + "\n")
    named = a.facts or facts_out or FACTS
    _write(a.out, record(facts, named))
    card_path = a.card or (CARD if default else None)
    if card_path:
        _write(card_path, card(facts, a.out, named))
    ok = met(facts)
    about = (
        "Which end-to-end targets the shipped models/meadow-nano.gguf meets, as measured "
        "(train/nano/model_card.py writes this with models/MODEL_CARD.md). Tests assert the claimed "
        "ones and skip the others by name."
    )
    _write(a.targets, json.dumps({"about": about, "met": ok}, indent=2) + "\n")
    print(f"wrote {a.out}{', ' + card_path if card_path else ''} and {a.targets}: met {ok}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
