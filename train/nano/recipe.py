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
    name: str, stage: str, steps: int, lr: float, replay: tuple[str, ...], mix: float, anneal: int, **extra
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
        replay=",".join(replay),
        mix_prev=mix,
        promote=2,
        eval_every=200,
        eval_tables=60,
        bf16=True,
        threads=2,
    )
    return Train(name, {**flags, **extra}, steps=steps, anneal=anneal)


# Replay mixes: the stages a fine-tune replays, in the order their picks draw from (a stage
# listed twice is drawn twice as often). Their order and repeats are the shipped model's streams.
SCENE_LADDER = ("scene-same-way", "scene-relational", "scene-clauses", "scenes-and-words")
SCENE_STAGES = (*SCENE_LADDER, "mixed-clauses", "still-by-letter")
WORD_LADDER_END = ("letter-first", "leads-and-joiners", "option-texts")
WORD_MIX = (*WORD_LADDER_END, "word-tables")  # the word branch's last stages
SCENES_AND_WORDS = (*SCENE_STAGES, "rare-places", *WORD_MIX)
SCENE_MIX = (*SCENE_STAGES, "still-by-letter", "rare-places")  # the scene stages, still-by-letter twice
DRILLS = ("binding-drill", "lookup-drill", "lookup-by-letter", "reworded-marked", "still-places")
# the polish's word-table phases replay the event stages six times, its event phases the word
# tables four times; the same pair alone lifts both skills (events +4-9 points at equal match rows)
EVENT_HEAVY = (
    *SCENE_MIX,
    *WORD_LADDER_END,
    *DRILLS,
    *3 * ("final-mix",),
    "reworded",
    "default-texts",
    *6 * ("events",),
)


def _cycle(
    first: str,
    first_stage: str,
    second: str,
    second_stage: str,
    word_replay: tuple[str, ...],
    keep: bool = False,
):
    """Two fine-tune stages: `first_stage` (word tables or event tables) at lr 2e-4 replaying the
    event stages six times (EVENT_HEAVY), then `second_stage` at 1e-4 replaying the word tables
    (`word_replay`); `keep`: the second's end is kept for the soup."""
    second_replay = (*SCENE_MIX, *WORD_MIX, *word_replay, *DRILLS, "final-mix", "reworded", "default-texts")
    return (
        fine_tune(first, first_stage, 3000, 2e-4, EVENT_HEAVY, 0.5, 1000),
        replace(fine_tune(second, second_stage, 1500, 1e-4, second_replay, 0.3, 1000), keep=keep),
    )


WORD_TABLES_3 = 3 * ("word-tables",)
WORD_TABLES_MADE_UP = ("word-tables", "made-up-words", "made-up-words")
# the joint's and the polish's later fine-tunes: the scene and word stages, then the drills and
# the later mixes they follow
LATER = (*SCENE_MIX, *WORD_MIX, "word-tables", *DRILLS)


SCENES = Phase(
    "scenes",
    "scenes",
    (
        CheckHeldOut("held-out", 2000),
        Train(
            "curriculum",
            dict(
                seed=0,
                stage="scene-same-way",
                max_stage="scenes-and-words",
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
                replay_from="scene-same-way",
                eval_every=200,
                eval_tables=60,
            ),
            steps=27000,
            doc="scene-same-way (same way / toward) -> scene-relational (all relational modes, "
            "distractors) -> scene-clauses (+ clause tables) -> scenes-and-words (+ word tables), "
            "promoted at 0.9",
        ),
        Train(
            "mixed-clauses",
            dict(
                total_minutes=1e9,
                set_stage="mixed-clauses",
                max_stage="mixed-clauses",
                tokenizer=TOKENIZER,
                lr=1e-3,
                lr2=0,
                mix_prev=0.3,
                replay_from="scene-same-way",
            ),
            steps=18000,
            anneal=12000,
            doc="clause tables in mixed forms, a default in any slot, still clauses; the scene ladder replayed",
        ),
        Train(
            "rare-places",
            dict(
                total_minutes=1e9,
                set_stage="rare-places",
                max_stage="rare-places",
                tokenizer=TOKENIZER,
                lr=3e-4,
                mix_prev=0.4,
                replay=",".join(SCENE_STAGES),
            ),
            steps=4000,
            anneal=3000,
            doc="mixed-clauses with rare dictionary nouns in place phrases (a rare noun had "
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
                path="compact-plateau,compact-shuffled,chat-plateau",
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
            doc="64 x 3 on the compact layout's plateau-crossing stages, then their chat twin, until "
            "chat-plateau reaches 0.88 (a circuit formed in the compact layout transfers; from "
            "scratch the chat layout stays at chance)",
        ),
        Grow("widen", "words-narrow", 2),
        Train(
            "ladder",
            dict(
                path=",".join(
                    (
                        "chat-plateau",
                        "chat-three-options",
                        "chat-three-four-options",
                        "chat-shuffled",
                        "gap-one-token",
                        "gap-two-tokens",
                        *WORD_LADDER_END,
                        "rare-conditions",
                        "partial-matches",
                        "word-tables",
                    )
                ),
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
            "letter, lead words, option texts, rare and two-word conditions, partial matches, "
            "the word tables; stopped at step 39,000 (flat there)",
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
                set_stage="mixed-clauses",
                max_stage="mixed-clauses",
                path="",
                lr=1e-3,
                lr2=0,
                warmup=200,
                replay=",".join((*SCENE_LADDER, *WORD_MIX)),
                mix_prev=0.4,
                promote=2,
                eval_every=200,
                eval_tables=60,
                bf16=True,
                threads=2,
            ),
            steps=4000,
            anneal=3000,
            doc="mixed-clauses with both branches' stages replayed: the halves learn to share the "
            "residual norms and which one to trust",
        ),
        fine_tune("still-places", "still-places", 2000, 5e-4, SCENES_AND_WORDS, 0.3, 500),
        fine_tune(
            "probes",
            "reworded-marked",
            2500,
            3e-4,
            (*SCENES_AND_WORDS, "binding-drill", "lookup-drill"),
            0.3,
            500,
            aux_binding=1,
            aux_clause=1,
            aux_letter=1,
        ),
        fine_tune(
            "still-drill",
            "lookup-by-letter",
            2000,
            3e-4,
            (*SCENES_AND_WORDS, "binding-drill", "lookup-drill", "reworded-marked"),
            0.3,
            500,
        ),
        fine_tune("final-mix", "final-mix", 9000, 5e-4, (*SCENE_MIX, *WORD_MIX, *DRILLS), 0.3, 3500),
        fine_tune(
            "word-tables",
            "word-tables",
            3000,
            2e-4,
            (*SCENE_MIX, *WORD_LADDER_END, *DRILLS, *3 * ("final-mix",)),
            0.5,
            1000,
        ),
        fine_tune("mix-low-lr", "final-mix", 1500, 1e-4, LATER, 0.3, 1000),
        fine_tune("reworded", "reworded", 2000, 2e-4, (*LATER, "final-mix"), 0.3, 1000),
        fine_tune("default-texts", "default-texts", 2000, 2e-4, (*LATER, "final-mix", "reworded"), 0.3, 1000),
        fine_tune(
            "events", "events", 3000, 3e-4, (*LATER, "final-mix", "reworded", "default-texts"), 0.3, 1500
        ),
        fine_tune(
            "default-texts-2",
            "default-texts",
            1500,
            1e-4,
            (*LATER, "final-mix", "reworded", "events"),
            0.3,
            1000,
        ),
        fine_tune(
            "default-texts-3",
            "default-texts",
            1500,
            1e-4,
            (*LATER, "final-mix", "reworded", "events"),
            0.3,
            1000,
        ),
    ),
    after=("scenes", "words"),
    doc="the two branches in one model, fine-tuned through the later stages: still-places "
    "(relational word tables with still clauses); reworded-marked (reworded scenes with the evidence "
    "probes, on from here); lookup-by-letter (the still-clause drill); final-mix; word-tables; "
    "reworded; default-texts (defaults named by any text); events (event tables)",
)

POLISH = Phase(
    "polish",
    "polish",
    (
        Spread("spread", "joint"),
        fine_tune(
            "read-softmax",
            "word-tables",
            3000,
            2e-4,
            (
                *SCENE_MIX,
                *WORD_LADDER_END,
                *DRILLS,
                *3 * ("final-mix",),
                "reworded",
                "default-texts",
                "events",
            ),
            0.5,
            1000,
            read_softmax=True,
        ),
        fine_tune(
            "default-texts",
            "default-texts",
            1500,
            1e-4,
            (*LATER, "final-mix", "reworded", "events"),
            0.3,
            1000,
        ),
        *(
            stage
            for n in range(1, 6)
            for stage in _cycle(
                f"cycle-{n}-words", "word-tables", f"cycle-{n}-events", "events", WORD_TABLES_3
            )
        ),
        *(
            stage
            for n in (1, 2)
            for stage in _cycle(
                f"made-up-{n}-words",
                "made-up-words",
                f"made-up-{n}-events",
                "events",
                WORD_TABLES_MADE_UP,
                keep=True,
            )
        ),
        Soup("soup"),
    ),
    after=("joint",),
    doc="the unread tokens' embeddings spread, then the read softmax keeps them apart while the "
    "word tables and the event tables are re-learnt in cycles, each replaying the other; two "
    "cycles on word tables with made-up words; the model is the mean of those two cycles' ends",
)

EVENTS = Phase(
    "events",
    "polish",
    (
        FreshOptimizer("fresh-optimizer"),
        *_cycle("shared", "events-shared", "shared-mix", "events", WORD_TABLES_MADE_UP),
        *_cycle("one-form", "events-one-form", "one-form-mix", "events", WORD_TABLES_MADE_UP),
        *_cycle("same-end", "events-same-end", "same-end-mix", "events", WORD_TABLES_MADE_UP),
        fine_tune(
            "words-74",
            "word-tables",
            3000,
            2e-4,
            (
                *SCENE_MIX,
                *WORD_LADDER_END,
                *DRILLS,
                *3 * ("final-mix",),
                "reworded",
                "default-texts",
                *6 * ("events-same-end",),
            ),
            0.5,
            1000,
        ),
        fine_tune(
            "same-end-last",
            "events-same-end",
            1500,
            1e-4,
            (*SCENE_MIX, *WORD_MIX, *WORD_TABLES_3, *DRILLS, "final-mix", "reworded", "default-texts"),
            0.3,
            1000,
        ),
    ),
    after=("polish",),
    doc="four event cycles from the polish's mean, with a fresh optimizer: clauses sharing nouns "
    "or predicates (events-shared), one form (events-one-form), predicates ending in one BPE token "
    "(events-same-end), each followed by the events mix; then the word tables replaying "
    "events-same-end and events-same-end replaying them "
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
