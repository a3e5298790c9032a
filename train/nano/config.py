"""train.py's settings in one structure: TrainConfig, one field per command-line flag (the field
kv_heads is --kv-heads), its default and help beside it.

Sticky fields (sticky=True) are the run's recipe: a resumed run keeps the checkpoint's value of
each one unless the command line names that flag again (train.py). `argparser()` builds
train.py's command line from the fields, `argv()` writes a field dict back as flags (what the
recipe's runner passes to `python3 -m train.nano.train`). No torch here: the recipe and its dry run
read this without loading it.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
from dataclasses import dataclass, field

from .corpus.curriculum import STAGES

FIRST, LAST = list(STAGES)[0], list(STAGES)[-1]

HERE = os.path.dirname(os.path.abspath(__file__))


def _flag(default, help: str = "", sticky: bool = False, kind=None, **argparse_kw):
    """A field and its flag. kind: "switch" (--x, store_true), "toggle" (--x / --no-x), or the
    argparse type (int, float, str); argparse_kw: nargs, metavar, required."""
    return field(default=default, metadata=dict(help=help, sticky=sticky, kind=kind, argparse=argparse_kw))


@dataclass
class TrainConfig:
    run: str = _flag(
        None, "run directory (checkpoint, log); resumes if it holds one", kind=str, required=True
    )
    tokenizer: str = _flag(os.path.join(HERE, "tokenizer", "vocab.json"), kind=str)
    seed: int = _flag(0, kind=int)
    # the model (new runs; a resumed run keeps its checkpoint's)
    dim: int = _flag(64, kind=int)
    layers: int = _flag(2, kind=int)
    heads: int = _flag(4, kind=int)
    kv_heads: int = _flag(2, kind=int)
    ffn: int = _flag(192, kind=int)
    # batches and the optimizer
    batch: int = _flag(16, "rule tables per step (each packs several situations)", True, int)
    lr: float = _flag(3e-3, sticky=True, kind=float)
    lr2: float = _flag(
        0.0,
        "once an eval reaches --lr2-acc, train on at this lr (0: never). Measured: the stage-0/1 "
        "plateau at 0.81 with lr 3e-3 rose to 0.90 within 500 steps at 1e-3",
        True,
        float,
    )
    lr2_acc: float = _flag(0.75, sticky=True, kind=float)
    warmup: int = _flag(100, sticky=True, kind=int)
    anneal: list[int] | None = _flag(
        None,
        "lr falls linearly from its base at step FROM to 5%% of it at step TO (and stays): "
        "the annealed end of a run is steadier than any snapshot at a constant lr",
        True,
        int,
        nargs=2,
        metavar=("FROM", "TO"),
    )
    read_softmax: bool = _flag(
        False,
        "the loss's softmax only over the tokens the batch reads (and the letters and "
        "specials): a token no text holds is then never pushed, and its embedding keeps "
        "its own direction instead of collapsing with the other unread ones",
        True,
        "toggle",
    )
    # extra losses and training-time probes (never exported)
    aux_binding: float = _flag(
        0.0, "weight of the evidence-mark probes (corpus/marks.py) on marked stages' situations", True, float
    )
    aux_letter: float = _flag(
        0.0,
        "weight of a probe reading the answer letter at the subject's direction word "
        "(on the direction mark's layer)",
        True,
        float,
    )
    aux_layers: str = _flag(
        "0,1", "layer whose output each mark kind is probed on (noun, direction)", True, str
    )
    aux_clause: float = _flag(
        0.0,
        "weight of a probe reading, at a rule clause's named option (clause marks, "
        "stages 52-53), that option's letter",
        True,
        float,
    )
    aux_clause_layer: int = _flag(
        1, "layer whose output the clause probe reads (the prefix's lookup by text)", True, int
    )
    aux_clause_tied: bool = _flag(
        False,
        "read the clause letter with the model's own output head (final norm, tied letter "
        "embeddings) instead of a separate probe: the letter then sits where a letter token's "
        "own embedding does, what the answer already copies from clauses naming a letter",
        True,
        "toggle",
    )
    aux_point: float = _flag(
        0.0,
        "weight of a loss making one head of --aux-point-layer attend, from the answer row of a "
        "situation a clause answers, to that clause's marked tokens (stages 52-53)",
        True,
        float,
    )
    aux_point_layer: int = _flag(-1, "layer of --aux-point (-1: the last)", True, int)
    aux_point_letter: float = _flag(
        0.0,
        "weight of a loss making what the --aux-point head writes, read by the tied letter "
        "embeddings, name the answer (the head pointed right but wrote < 0.1 logit)",
        True,
        float,
    )
    aux_point_head: int = _flag(
        0,
        "the head of --aux-point (one fixed head: the best of several is gamed by two heads "
        "that always attend to the first and the second clause)",
        True,
        int,
    )
    # the curriculum: stages by name (corpus/curriculum.py; a number is the stage of that seed)
    stage: str = _flag(FIRST, "starting curriculum stage", kind=str)
    set_stage: str | None = _flag(
        None,
        "on resume: continue at this stage (e.g. after stages were inserted into the curriculum)",
        kind=str,
    )
    max_stage: str = _flag(LAST, "the last stage promotion reaches", True, str)
    promote: float = _flag(0.9, "eval accuracy that moves to the next stage", True, float)
    path: str | None = _flag(
        None,
        "comma list: the stages to walk, in this order (promotion moves to the next one; "
        "without --replay, --mix-prev replays the path's earlier stages)",
        True,
        str,
    )
    stop_at_end: bool = _flag(
        False,
        "save and exit once an eval at the last stage (of --path, else --max-stage) reaches --promote",
        kind="switch",
    )
    mix_prev: float = _flag(0.2, sticky=True, kind=float)
    replay_from: str = _flag(
        FIRST,
        "--mix-prev replays the stages from this one to the one before the current (the scene "
        "recipe: scene-same-way)",
        True,
        str,
    )
    replay_to: str | None = _flag(
        None, "last stage --mix-prev replays (default: the one before the current)", True, str
    )
    replay: str | None = _flag(
        None,
        "comma list: --mix-prev replays these stages instead of replay-from..to (any order, "
        "e.g. word-table stages under the scene curriculum; '' clears a resumed run's list)",
        True,
        str,
    )
    # how long, how often, where
    steps: int = _flag(10**9, kind=int)
    minutes: float = _flag(1e9, "stop after this wall time (this invocation)", kind=float)
    total_minutes: float = _flag(
        1e9, "stop when the run's wall time summed over all resumed invocations reaches this", True, float
    )
    eval_every: int = _flag(250, sticky=True, kind=int)
    eval_tables: int = _flag(150, sticky=True, kind=int)
    threads: int = _flag(1, kind=int)
    threads_later: list[str] | None = _flag(
        None,
        "use N threads once FILE exists (checked at each eval), e.g. a word branch taking the "
        "scene branch's core when that finishes (bf16 steps do not depend on threads)",
        kind=str,
        nargs=2,
        metavar=("FILE", "N"),
    )
    bf16: bool = _flag(
        False,
        "training forward under bfloat16 autocast (evals stay float32). Measured: 1.4x per step at "
        "128 x 2 (AMX/AVX-512 CPU); gradient cosine to float32 0.986-0.999",
        True,
        "toggle",
    )
    workers: int = _flag(
        0,
        "pack the batches up to the next eval in N worker processes (0: inline). The same "
        "batches; for a GPU, whose step is faster than the corpus (on 2 CPU cores it only competes)",
        kind=int,
    )
    device: str = _flag(
        "cpu",
        "torch device of the model and its steps (cuda: a lent GPU); the corpus is packed on the "
        "CPU and checkpoints are saved with CPU tensors, so a run moves between machines",
        kind=str,
    )


FIELDS = {f.name: f for f in dataclasses.fields(TrainConfig)}
# Flags no recipe stage or test set, removed (issue 61) at the values every run had: a checkpoint
# whose arguments hold another value was trained in a way train.py no longer does.
RETIRED = {
    "untied": False,  # the output head is the token embedding
    "mimetic": 0.0,  # plain scaled init
    "max_len": 256,  # tokens a packed row holds
    "wd": 0.01,  # AdamW's weight decay
    "aux_mask": 0.0,  # no situation tokens masked besides the answer slot
    "prefix_mask": 0.0,  # no rule / option tokens masked
    "reveal": 0.0,  # no situation trained in reverse
    "ckpt_every": 500,  # steps between checkpoints
}
STICKY = tuple(name for name, f in FIELDS.items() if f.metadata["sticky"])


def flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def argparser(description: str = "") -> argparse.ArgumentParser:
    """train.py's command line: one flag per TrainConfig field, in field order."""
    ap = argparse.ArgumentParser(
        description=description, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    for name, f in FIELDS.items():
        kind, kw = f.metadata["kind"], dict(f.metadata["argparse"])
        if f.metadata["help"]:
            kw["help"] = f.metadata["help"]
        if kind == "switch":
            ap.add_argument(flag(name), action="store_true", **kw)
        elif kind == "toggle":
            ap.add_argument(flag(name), action=argparse.BooleanOptionalAction, default=f.default, **kw)
        elif kw.get("required"):
            ap.add_argument(flag(name), **kw)
        else:
            ap.add_argument(flag(name), type=kind if kind is not str else None, default=f.default, **kw)
    return ap


def _text(value) -> str:
    return format(value, "g") if isinstance(value, float) else str(value)


def argv(flags: dict) -> list[str]:
    """TrainConfig fields as train.py flags: {"set_stage": 13, "bf16": True, "anneal": (1, 2)} ->
    ["--set-stage", "13", "--bf16", "--anneal", "1", "2"]. A switch is given only when True; a
    toggle as --x or --no-x; "" for a list flag (path, replay) clears a resumed run's list."""
    out: list[str] = []
    for name, value in flags.items():
        if name not in FIELDS:
            raise KeyError(f"train.py has no flag {flag(name)} (TrainConfig.{name})")
        kind = FIELDS[name].metadata["kind"]
        if kind == "switch":
            if value is not True:
                raise ValueError(f"{flag(name)} is a switch: give it as True or leave it out")
            out.append(flag(name))
        elif kind == "toggle":
            out.append(flag(name) if value else "--no-" + flag(name)[2:])
        elif isinstance(value, (list, tuple)):
            out += [flag(name), *(_text(v) for v in value)]
        else:
            out += [flag(name), _text(value)]
    return out
