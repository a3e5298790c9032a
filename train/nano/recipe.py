"""The embedded model's recipe (models/meadow-nano.gguf, issue 4): named phases of named stages.

    python3 -m train.nano.run_recipe --dry-run      # the plan: every stage, every train.py command
    python3 -m train.nano.run_recipe                # run it (resumable: the same command continues)

Two branches train from scratch, one per core: the scene branch (plain-English scenes, 64 x 2)
and the word-table branch (open-vocabulary rule tables, 64 x 3 widened to 128 x 3). The joint
phase stitches them side by side and fine-tunes the pair through the later corpus stages; the
polish spreads the embeddings of the tokens no training text holds, re-learns the word tables
with the read softmax and ends on the mean of its last two cycles; the event cycles follow; the
release exports and measures it. Each stage names its corpus stage (train/nano/corpus/curriculum.py)
and its train.py flags (TrainConfig fields, train/nano/config.py); flags not given keep the run's
value (sticky flags) or their default. Why each phase is shaped as it is, with the numbers:
train/DESIGN.md.

This is the recipe the shipped model's lineage was trained by (docs/meadow-nano-record.md);
tests/train/test_stream_hashes.py pins every train.py call's configuration and batches.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

TOKENIZER = "train/nano/tokenizer/vocab.json"


@dataclass(frozen=True)
class Train:
    """A train.py run on the stage's run folder. Its end: `steps` after the previous stage's end
    (the phase's first one: after the step the phase started at), or step `until`, or (neither)
    when train.py stops by itself (--stop-at-end). `anneal`: its last N steps, the lr falls to 5 %
    (train.py --anneal). `keep`: its end's checkpoint is kept for the phase's Soup."""

    name: str
    flags: dict
    steps: int | None = None
    until: int | None = None
    anneal: int = 0
    keep: bool = False
    run: str | None = None  # another run folder than the phase's
    doc: str = ""


@dataclass(frozen=True)
class CheckHeldOut:
    """train/nano/check_contamination.py on `examples` examples per stage: stops the recipe if
    any generated text holds a held-out 6-gram."""

    name: str
    examples: int


@dataclass(frozen=True)
class Grow:
    """train/nano/grow.py: the `source` run's checkpoint, every width x `widen`, as this run's start."""

    name: str
    source: str
    widen: int


@dataclass(frozen=True)
class Stitch:
    """train/nano/stitch.py: runs `a` and `b` side by side in one wider model (b's step and stage go on)."""

    name: str
    a: str
    b: str


@dataclass(frozen=True)
class Spread:
    """train/nano/spread_unread.py: the `source` run's model with its unread tokens' embeddings spread
    (which tokens are unread: `per_stage` examples of every stage it trained on)."""

    name: str
    source: str
    per_stage: int = 400


@dataclass(frozen=True)
class Soup:
    """train/nano/average.py: the mean of the phase's kept checkpoints (Train keep=True), as the run's."""

    name: str


@dataclass(frozen=True)
class FreshOptimizer:
    """The run's checkpoint without its optimizer state: the next train.py run starts a fresh one."""

    name: str


@dataclass(frozen=True)
class Export:
    """train/nano/export_gguf.py: the run's checkpoint as the GGUF (run_recipe.py --out)."""

    name: str


@dataclass(frozen=True)
class Measure:
    """train/nano/measure.py: the exported GGUF's evaluation table, episodes, relabelling tests and
    bench, then models/MODEL_CARD.md and docs/meadow-nano-record.md."""

    name: str


@dataclass(frozen=True)
class Phase:
    """Stages run in order on one run folder (ROOT/run). `after`: the phases it reads from."""

    name: str
    run: str
    stages: tuple
    after: tuple[str, ...] = ()
    doc: str = ""


def fine_tune(
    name: str, stage: int, steps: int, lr: float, replay: str, mix: float, anneal: int, **extra
) -> Train:
    """A fine-tune stage of the joint, the polish and the event cycles: corpus stage `stage` for
    `steps` steps at `lr` (100 warm-up steps), `mix` of each batch replaying the listed stages,
    the last `anneal` steps annealed; no promotion; bf16 autocast on two threads. `extra`: more
    train.py flags (sticky ones, such as read_softmax, stay on in the stages after it)."""
    flags = dict(
        total_minutes=1e9,
        set_stage=stage,
        max_stage=stage,
        lr=lr,
        warmup=100,
        replay=replay,
        mix_prev=mix,
        promote=2,
        eval_every=200,
        eval_tables=60,
        bf16=True,
        threads=2,
    )
    return Train(name, {**flags, **extra}, steps=steps, anneal=anneal)


def _stages(*groups: str) -> str:
    return ",".join(groups)


# replay lists: the word branch's stages, the scene stages (14 twice), the drills
W = "22,23,24,25"
S = _stages("9,10,11,12,13,14,30", W)
R = "9,10,11,12,13,14,14,30"
DRILLS = "47,53,62,51,37"
# the polish's word-table phases replay the event stages six times (E), its event phases the word
# tables four times; the same pair alone lifts both skills (events +4-9 points at equal match rows)
E = _stages(R, "22,23,24", DRILLS, "61,61,61,65,66,67,67,67,67,67,67")


def _cycle(
    first: str, first_stage: int, second: str, second_stage: int, word_replay: str, keep: bool = False
):
    """Two fine-tune stages: `first_stage` (word tables or event tables) at lr 2e-4 replaying the
    event stages six times (E), then `second_stage` at 1e-4 replaying the word tables
    (`word_replay`); `keep`: the second's end is kept for the soup."""
    return (
        fine_tune(first, first_stage, 3000, 2e-4, E, 0.5, 1000),
        replace(
            fine_tune(
                second, second_stage, 1500, 1e-4, _stages(R, W, word_replay, DRILLS, "61,65,66"), 0.3, 1000
            ),
            keep=keep,
        ),
    )


SCENES = Phase(
    "scenes",
    "scenes",
    (
        CheckHeldOut("held-out", 2000),
        Train(
            "curriculum",
            dict(
                seed=0,
                stage=9,
                max_stage=12,
                tokenizer=TOKENIZER,
                dim=64,
                layers=2,
                heads=4,
                kv_heads=2,
                ffn=192,
                batch=16,
                lr=3e-3,
                lr2=1e-3,
                lr2_acc=0.8,
                promote=0.9,
                mix_prev=0.2,
                replay_from=9,
                eval_every=200,
                eval_tables=60,
            ),
            steps=27000,
            doc="stage 9 (same way / toward) -> 10 (all relational modes, distractors) -> 11 "
            "(+ clause tables) -> 12 (+ word tables), promoted at 0.9",
        ),
        Train(
            "mixed-clauses",
            dict(
                total_minutes=1e9,
                set_stage=13,
                max_stage=13,
                tokenizer=TOKENIZER,
                lr=1e-3,
                lr2=0,
                mix_prev=0.3,
                replay_from=9,
            ),
            steps=18000,
            anneal=12000,
            doc="stage 13: clause tables in mixed forms, a default in any slot, still clauses; 9-12 replayed",
        ),
        Train(
            "rare-places",
            dict(
                total_minutes=1e9,
                set_stage=30,
                max_stage=30,
                tokenizer=TOKENIZER,
                lr=3e-4,
                mix_prev=0.4,
                replay="9,10,11,12,13,14",
            ),
            steps=4000,
            anneal=3000,
            doc="stage 30: stage 13 with rare dictionary nouns in place phrases (a rare noun had "
            "decided an exam item)",
        ),
    ),
    doc="the scene branch, 64 x 2, float32 on one thread",
)

WORDS = Phase(
    "words",
    "words",
    (
        Train(
            "narrow",
            dict(
                seed=0,
                path="0,1,16",
                stop_at_end=True,
                tokenizer=TOKENIZER,
                dim=64,
                layers=3,
                heads=4,
                kv_heads=2,
                ffn=192,
                batch=16,
                lr=3e-3,
                lr2=1e-3,
                lr2_acc=0.75,
                promote=0.88,
                mix_prev=0.2,
                eval_every=200,
                eval_tables=60,
            ),
            run="words-narrow",
            doc="64 x 3 on the compact layout's plateau-crossing stages 0 -> 1, then their chat "
            "twin 16, until 16 reaches 0.88 (a circuit formed in the compact layout transfers; from "
            "scratch the chat layout stays at chance)",
        ),
        Grow("widen", "words-narrow", 2),
        Train(
            "ladder",
            dict(
                path="16,17,18,19,20,21,22,23,24,26,27,25",
                stop_at_end=True,
                tokenizer=TOKENIZER,
                lr=1e-3,
                lr2=0,
                warmup=200,
                promote=0.9,
                mix_prev=0.2,
                bf16=False,
                threads=1,
            ),
            until=39000,
            doc="128 x 3 up the chat ladder: 3, then 2-4 options, the gap between condition and "
            "letter, lead words, option texts, rare and two-word conditions (26), partial matches "
            "(27), the word tables of stages 12-13 (25); stopped at step 39,000 (flat there)",
        ),
    ),
    doc="the word-table branch; float32 on one thread (bf16 from scratch stays at chance)",
)

JOINT = Phase(
    "joint",
    "joint",
    (
        Stitch("stitch", "scenes", "words"),
        Train(
            "fine-tune",
            dict(
                set_stage=13,
                max_stage=13,
                path="",
                lr=1e-3,
                lr2=0,
                warmup=200,
                replay="9,10,11,12,22,23,24,25",
                mix_prev=0.4,
                promote=2,
                eval_every=200,
                eval_tables=60,
                bf16=True,
                threads=2,
            ),
            steps=4000,
            anneal=3000,
            doc="stage 13 with both branches' stages replayed: the halves learn to share the "
            "residual norms and which one to trust",
        ),
        fine_tune("still-places", 37, 2000, 5e-4, S, 0.3, 500),
        fine_tune(
            "probes",
            51,
            2500,
            3e-4,
            _stages(S, "47,53"),
            0.3,
            500,
            aux_binding=1,
            aux_clause=1,
            aux_letter=1,
        ),
        fine_tune("still-drill", 62, 2000, 3e-4, _stages(S, "47,53,51"), 0.3, 500),
        fine_tune("final-mix", 61, 9000, 5e-4, _stages(R, W, DRILLS), 0.3, 3500),
        fine_tune(
            "word-tables", 25, 3000, 2e-4, _stages(R, "22,23,24", "47,53,62,51,37,61,61,61"), 0.5, 1000
        ),
        fine_tune("mix-low-lr", 61, 1500, 1e-4, _stages(R, W, "25,47,53,62,51,37"), 0.3, 1000),
        fine_tune("reworded", 65, 2000, 2e-4, _stages(R, W, "25,47,53,62,51,37,61"), 0.3, 1000),
        fine_tune("default-texts", 66, 2000, 2e-4, _stages(R, W, "25,47,53,62,51,37,61,65"), 0.3, 1000),
        fine_tune("events", 67, 3000, 3e-4, _stages(R, W, "25,47,53,62,51,37,61,65,66"), 0.3, 1500),
        fine_tune("default-texts-2", 66, 1500, 1e-4, _stages(R, W, "25,47,53,62,51,37,61,65,67"), 0.3, 1000),
        fine_tune("default-texts-3", 66, 1500, 1e-4, _stages(R, W, "25,47,53,62,51,37,61,65,67"), 0.3, 1000),
    ),
    after=("scenes", "words"),
    doc="the two branches in one model, fine-tuned through the later stages: "
    "37 relational word tables with still clauses; 51 reworded scenes with the evidence probes "
    "(on from here); 62 the still-clause drill; 61 the full mix; 25 the word tables; 65 reworded "
    "scenes; 66 defaults named by any text; 67 event tables",
)

POLISH = Phase(
    "polish",
    "polish",
    (
        Spread("spread", "joint"),
        fine_tune(
            "read-softmax",
            25,
            3000,
            2e-4,
            _stages(R, "22,23,24", DRILLS, "61,61,61,65,66,67"),
            0.5,
            1000,
            read_softmax=True,
        ),
        fine_tune("default-texts", 66, 1500, 1e-4, _stages(R, W, "25,47,53,62,51,37,61,65,67"), 0.3, 1000),
        *_cycle("cycle-1-words", 25, "cycle-1-events", 67, "25,25,25"),
        *_cycle("cycle-2-words", 25, "cycle-2-events", 67, "25,25,25"),
        *_cycle("cycle-3-words", 25, "cycle-3-events", 67, "25,25,25"),
        *_cycle("cycle-4-words", 25, "cycle-4-events", 67, "25,25,25"),
        *_cycle("cycle-5-words", 25, "cycle-5-events", 67, "25,25,25"),
        *_cycle("made-up-1-words", 68, "made-up-1-events", 67, "25,68,68", keep=True),
        *_cycle("made-up-2-words", 68, "made-up-2-events", 67, "25,68,68", keep=True),
        Soup("soup"),
    ),
    after=("joint",),
    doc="the unread tokens' embeddings spread, then the read softmax keeps them apart while the "
    "word tables (25) and the event tables (67) are re-learnt in cycles, each replaying the other; "
    "two cycles on word tables with made-up words (68); the model is the mean of those two cycles' "
    "ends",
)

EVENTS = Phase(
    "events",
    "polish",
    (
        FreshOptimizer("fresh-optimizer"),
        *_cycle("shared", 69, "shared-mix", 67, "25,68,68"),
        *_cycle("one-form", 71, "one-form-mix", 67, "25,68,68"),
        *_cycle("same-end", 74, "same-end-mix", 67, "25,68,68"),
        fine_tune(
            "words-74",
            25,
            3000,
            2e-4,
            _stages(R, "22,23,24", DRILLS, "61,61,61,65,66,74,74,74,74,74,74"),
            0.5,
            1000,
        ),
        fine_tune("same-end-last", 74, 1500, 1e-4, _stages(R, W, "25,25,25", DRILLS, "61,65,66"), 0.3, 1000),
    ),
    after=("polish",),
    doc="four event cycles from the polish's mean, with a fresh optimizer: clauses sharing nouns "
    "or predicates (69), one form (71), predicates ending in one BPE token (74), each followed by "
    "the stage-67 mix; then the word tables replaying stage 74 and stage 74 replaying them "
    "(train/DESIGN.md, events)",
)

RELEASE = Phase(
    "release",
    "polish",
    (Export("export"), Measure("measure")),
    after=("events",),
    doc="models/meadow-nano.gguf, measured: models/MODEL_CARD.md, docs/meadow-nano-record.md",
)

RECIPE: tuple[Phase, ...] = (SCENES, WORDS, JOINT, POLISH, EVENTS, RELEASE)


# The held-out files meadow-nano's corpus was generated with (train/common/heldout/). Tasks added
# after it (parkour, shapes) are held out of new models' corpora; this recipe keeps the set
# it was trained with, so it reproduces the shipped model's streams (tests/train/
# test_stream_hashes.py). run_recipe passes it to every process as $MEADOW_HELDOUT_FILES.
HELDOUT_FILES = (
    "cartpole.txt",
    "frozenlake.txt",
    "lunarlander.txt",
    "maze.txt",
    "mountaincar.txt",
    "rephrased.txt",
)


@dataclass(frozen=True)
class Recipe:
    """Phases by name, checked: unique names, known `after` phases listed before, unique stage
    names within a phase."""

    phases: tuple[Phase, ...] = RECIPE
    by_name: dict = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        names = [p.name for p in self.phases]
        if len(set(names)) != len(names):
            raise ValueError(f"recipe: phase names repeat: {names}")
        for i, p in enumerate(self.phases):
            for dep in p.after:
                if dep not in names[:i]:
                    raise ValueError(
                        f"recipe: phase {p.name} comes after {dep!r}, which is not an earlier phase"
                    )
            stage_names = [s.name for s in p.stages]
            if len(set(stage_names)) != len(stage_names):
                raise ValueError(f"recipe: stage names repeat in phase {p.name}: {stage_names}")
        object.__setattr__(self, "by_name", {p.name: p for p in self.phases})
