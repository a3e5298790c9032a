"""Curriculum stages: one table of knobs per stage, from the easiest probe to the full task.

Issue 4 measured that the "which condition matches" skill sits behind a long plateau that
only short, easy examples cross quickly (2 options, exact words). Each stage widens one or
two things at a time: 2 options -> 6; common exact words -> rare words (split into
subwords) -> inflections / synonyms / reordering -> all templates, distractors, defaults,
relational and bucketed-number rules, and the chat layout.

STAGES holds the stages the recipe (train/nano/recipe.py) trains, replays or reads (the word branch's
checkpoints count tables of the stages seeded 2-8 and 15 too, which spread_unread.py samples), by
name, in curriculum order. Each has its own fixed `seed`, its number before the stages were named
(issue 61): the stage's stream is seeded by it (corpus/generate.py), so renaming a stage changes
no data, and a number where a name is expected (an old checkpoint, log or command line) still
finds its stage (`name_of`). The comments below name stages by those numbers. Stages the recipe
never used were removed (issue 46); their seeds stay unused, their definitions are in git history.
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Stage:
    # the stage's own stream: example i of a run seeded s is drawn from f"{s}:{seed}:{i}"
    # (corpus/generate.py), so a stage keeps its data whatever it is named (the stages were
    # numbered before issue 61; each keeps its number here)
    seed: int = -1
    options: tuple[int, int] = (2, 2)  # min/max options per table
    cond_words: tuple[int, int] = (1, 1)  # words per condition
    conds_per_option: int = 1  # up to this many conditions joined by "or"
    pool: float = 0.0  # share of content words from the full wamerican list (rest: common words)
    distractors: tuple[int, int] = (1, 2)  # distractor phrases in a situation
    partial: float = 0.0  # prob. a distractor holds part of another option's condition
    partial_repeat: float = 0.0  # prob. such a part is said twice (two phrases): it outnumbers the answer
    partial_whole: bool = True  # False: a situation's parts of one condition never add up to all its words
    variation: float = 0.0  # prob. a matched word is inflected or replaced by a synonym
    reorder: float = 0.0  # prob. the condition's words are reordered in the situation
    modifiers: float = 0.0  # prob. of "slightly", "very", ... inserted
    templates: int = 1  # how many rule templates are in use (1 = only "If X, choose L.")
    template_set: tuple[int, ...] = ()  # if set: only these RULE_CLAUSES indices (overrides templates)
    letter_first: float = (
        0.0  # prob. a clause takes one of the pool's letter-first templates ("Pick L when C.")
    )
    shuffled_letters: float = 0.0  # prob. letters are not A,B,C.. in order
    default: float = 0.0  # prob. the table has an "otherwise" option
    relational: float = 0.0  # prob. of a same/opposite/toward rule
    bucket: float = 0.0  # prob. of a bucketed-number / comparison rule
    chat: float = 0.0  # prob. of the chat layout (else the compact one)
    case: float = 0.0  # prob. per word of Title / UPPER case variation
    situations: tuple[int, int] = (4, 8)  # situations packed per rule table
    fixed_options: bool = False  # option texts from templates.FIXED_ACTIONS (no content words)
    leads: bool = True  # situation lead words ("Now", "You see") and varied joiners
    shuffle_clauses: float = 0.5  # prob. the rule's clauses are not in option order
    article: float = 0.25  # prob. a condition is written with a leading "the "
    scene: float = 0.0  # prob. of a plain-English scene table (corpus/scenes.py)
    scene_level: int = 2  # 0: "same way"/"toward" rules only, no distractors; 2: all;
    #                                          7, 8: still-clause lookup drills (by text; by letter half the time)
    rephrase: float = 0.0  # prob. a scene situation is reworded (corpus/reword.py)
    reword_level: int = 1  # 2: more verb synonyms, modifiers, distractor directions
    place_pool: float = 0.0  # prob. a scene place's noun is any dictionary word (rare tokens)
    more_places: bool = False  # scene place phrases from phrases.MORE_PLACES (part nouns: "the bottom of")
    hazard_first: float = 0.0  # prob. a toward / away scene situation opens with the hazard's phrase
    place_forms: float = 0.0  # prob. its phrases say the direction in other words ("9 steps below")
    front: float = 0.0  # prob. a scene situation's first tail phrase moves before the subject
    still_places: float = 0.0  # prob. a same/opposite word relational table has "still D of the N" clauses
    marks: bool = False  # relational word tables mark subject noun + direction (corpus/marks.py)
    scene_marks: bool = False  # the same in relational scenes (not in reworded situations)
    clause_marks: bool = False  # rule clauses mark the option they name, with its letter
    clause_conditions: bool = False  # ... and their condition too (stages 54-55)
    match_marks: int = 0  # match-table situations mark condition words with their option's letter:
    # 1 the answering condition's words, 2 partial matches' words too
    rel_pairs2: float = 0.3  # prob. a relational word table with room for 4 options has two direction pairs
    rel_distractors: tuple[int, int] | None = (
        None  # other things' phrases in a relational word table's situation
    )
    # (None: 0 .. distractors[1] - 2)
    scene_shuffle: float = (
        0.35  # prob. a scene table's letters are not A, B, C.. (half of those listed out of order)
    )
    default_text: float = (
        0.0  # prob. a scene table's "otherwise" option is not an idle phrase of scenes.NEUTRAL
    )
    events: float = 0.0  # prob. a scene table is an everyday-English event table (corpus/events.py)
    event_shared: float = 0.3  # prob. (each) that an event table's clauses share a noun / a predicate
    event_tails: float = 0.0  # prob. an event situation's condition ends in a place ("at the door")
    event_uniform: float = 0.0  # prob. an event table's predicates all take one form ("is V-ing")
    event_marks: bool = False  # event tables carry the clause marks (clause_marks / _conditions)
    event_near: float = 0.0  # prob. a one-form event table's predicates all start with one letter
    event_same_end: float = 0.0  # prob. an event table's predicates all end in one BPE token
    made_up: float = 0.0  # prob. a match table's content word is made up (tables.made_up_word)


# stage 25's knobs: the word tables of stages 12-13 alone
_WORD_TABLES = Stage(
    options=(2, 4),
    cond_words=(1, 2),
    pool=0.5,
    distractors=(1, 4),
    partial=0.3,
    templates=8,
    shuffled_letters=0.3,
    case=0.05,
    chat=1.0,
    situations=(6, 10),
)

# the joint's mix (stages 37-62): stage 14's knobs with half the tables scenes and 60 % of the word tables relational
_MIXED = Stage(
    options=(2, 4),
    cond_words=(1, 2),
    pool=0.5,
    distractors=(1, 4),
    partial=0.3,
    templates=8,
    shuffled_letters=0.3,
    case=0.05,
    chat=1.0,
    scene=0.5,
    scene_level=4,
    situations=(6, 10),
    place_pool=0.5,
    relational=0.6,
)

# stage 61's knobs: the joint's final mix (stage 65 rewords most of its scene situations)
_MIX61 = replace(
    _MIXED,
    still_places=0.7,
    scene_shuffle=0.8,
    shuffled_letters=0.6,
    rephrase=0.3,
    reword_level=2,
    scene_level=6,
    marks=True,
    scene_marks=True,
    clause_marks=True,
    relational=0.8,
    rel_pairs2=0.8,
    more_places=True,
    hazard_first=0.5,
    place_forms=0.5,
)

STAGES: dict[str, Stage] = {
    # the plateau-crossing stage: short situations (the condition + one distractor word), many
    # per table; rule "W1 A. W2 B." with no token between a word and its letter, clauses in
    # option order, no article. Measured: this leaves chance at ~800 steps,
    # while the same stage with clauses shuffled stayed at chance for 2,600+ steps.
    "compact-plateau": Stage(
        seed=0,
        distractors=(1, 1),
        situations=(8, 12),
        leads=False,
        template_set=(16,),
        fixed_options=True,
        shuffle_clauses=0.0,
        article=0.0,
    ),
    # clauses in either order: the letter must now be bound to its word (not to the clause's place)
    "compact-shuffled": Stage(
        seed=1, distractors=(1, 1), situations=(8, 12), leads=False, template_set=(16,), fixed_options=True
    ),
    # 3-4 options, still zero gap: 2-option tables can be solved by checking one word (is A's
    # word in the situation?), which does not carry over; 3+ options need the real lookup.
    # Measured: 2-option-trained models sat at 0.46 on 3-option tables (chance 0.33).
    "three-four-options": Stage(
        seed=2,
        options=(3, 4),
        distractors=(1, 1),
        situations=(8, 12),
        leads=False,
        template_set=(16,),
        fixed_options=True,
        article=0.0,
    ),
    # one token between word and letter ("W: L") in half the clauses, up to 3 options
    "one-token-gap": Stage(
        seed=3,
        options=(2, 3),
        distractors=(1, 2),
        situations=(6, 10),
        leads=False,
        template_set=(16, 6),
        fixed_options=True,
    ),
    "few-templates": Stage(
        seed=4,
        options=(2, 3),
        cond_words=(1, 2),
        distractors=(1, 3),
        template_set=(16, 6, 6, 1, 0),
        shuffled_letters=0.1,
        fixed_options=True,
    ),
    "word-tables-compact": Stage(
        seed=5,
        options=(2, 4),
        cond_words=(1, 2),
        pool=0.5,
        distractors=(1, 4),
        partial=0.3,
        templates=8,
        shuffled_letters=0.3,
        case=0.05,
        chat=0.2,
    ),
    "wide-mix": Stage(
        seed=6,
        options=(2, 5),
        cond_words=(1, 3),
        conds_per_option=2,
        pool=0.8,
        distractors=(1, 4),
        partial=0.4,
        variation=0.3,
        reorder=0.2,
        modifiers=0.3,
        templates=99,
        shuffled_letters=0.4,
        default=0.15,
        relational=0.1,
        bucket=0.1,
        chat=0.5,
        case=0.08,
    ),
    "widest-mix": Stage(
        seed=7,
        options=(2, 6),
        cond_words=(1, 3),
        conds_per_option=3,
        pool=0.9,
        distractors=(0, 5),
        partial=0.5,
        variation=0.4,
        reorder=0.3,
        modifiers=0.4,
        templates=99,
        shuffled_letters=0.5,
        default=0.2,
        relational=0.15,
        bucket=0.15,
        chat=0.8,
        case=0.1,
        situations=(3, 8),
    ),
    # plain-English scenes in the runtime's chat layout (what users and perceivers write),
    # mixed with stage-4-like word tables so the general matching skill stays
    "first-scenes": Stage(
        seed=8,
        options=(2, 5),
        cond_words=(1, 2),
        pool=0.5,
        distractors=(1, 4),
        partial=0.3,
        templates=8,
        shuffled_letters=0.3,
        case=0.05,
        chat=1.0,
        scene=1.0,
        situations=(4, 8),
    ),
    # 9: the option-text route alone: "go the way the X is moving" -> the option whose text
    # holds the situation's direction word (few distinct direction words: crosses fast)
    "scene-same-way": Stage(seed=9, options=(2, 4), chat=1.0, scene=1.0, scene_level=0, situations=(8, 12)),
    # 10: all relational modes (opposite, away), distractor things with their own directions,
    # a "do nothing" option and clauses that name an option by its text
    "scene-relational": Stage(
        seed=10, options=(2, 5), chat=1.0, scene=1.0, scene_level=1, situations=(6, 10)
    ),
    # 11: + clause tables ("If the X is V-ing D, choose L"), the full scene mix (as stage 8)
    "scene-clauses": Stage(seed=11, options=(2, 5), chat=1.0, scene=1.0, scene_level=2, situations=(6, 10)),
    # 12: scenes with word tables mixed back in, so the general matching skill is kept
    # (`options` binds the word tables; scene tables have 2-5 options of their own)
    "scenes-and-words": Stage(
        seed=12,
        options=(2, 4),
        cond_words=(1, 2),
        pool=0.5,
        distractors=(1, 4),
        partial=0.3,
        templates=8,
        shuffled_letters=0.3,
        case=0.05,
        chat=1.0,
        scene=0.75,
        situations=(4, 8),
    ),
    # 13: mixed clause tables (clauses in different forms, a default in any slot, option texts
    # whose directions disagree with the clauses') and still clauses aimed at the options whose
    # text does not hold their direction, over the stage-12 mix
    "mixed-clauses": Stage(
        seed=13,
        options=(2, 4),
        cond_words=(1, 2),
        pool=0.5,
        distractors=(1, 4),
        partial=0.3,
        templates=8,
        shuffled_letters=0.3,
        case=0.05,
        chat=1.0,
        scene=0.85,
        scene_level=3,
        situations=(6, 10),
    ),
    # 14: as 13, with more relational tables whose still clauses name their option by letter
    # half the time ("If the X is still left of the N, choose C.")
    "still-by-letter": Stage(
        seed=14,
        options=(2, 4),
        cond_words=(1, 2),
        pool=0.5,
        distractors=(1, 4),
        partial=0.3,
        templates=8,
        shuffled_letters=0.3,
        case=0.05,
        chat=1.0,
        scene=0.85,
        scene_level=4,
        situations=(6, 10),
    ),
    # 15: word tables alone in the chat layout, made easy: one common word per condition, the
    # letter named in the clause, fixed option texts (content words in the options stalled the
    # matching probe), 2-4 options. The scene recipe's models answer word tables at chance.
    "easy-chat-words": Stage(
        seed=15,
        options=(2, 4),
        distractors=(1, 2),
        template_set=(0, 1, 2, 3, 5, 6, 7, 16),
        shuffled_letters=0.3,
        fixed_options=True,
        chat=1.0,
        situations=(6, 10),
    ),
    # 16: stage 0 in the chat layout (does the layout alone lengthen the plateau?)
    "chat-plateau": Stage(
        seed=16,
        distractors=(1, 1),
        situations=(8, 12),
        leads=False,
        template_set=(16,),
        fixed_options=True,
        shuffle_clauses=0.0,
        article=0.0,
        chat=1.0,
    ),
    # 17: stage 16 with 3 options (2-option tables can be solved by checking A's word alone)
    "chat-three-options": Stage(
        seed=17,
        options=(3, 3),
        distractors=(1, 1),
        situations=(8, 12),
        leads=False,
        template_set=(16,),
        fixed_options=True,
        shuffle_clauses=0.0,
        article=0.0,
        chat=1.0,
    ),
    # 18: 3-4 options, still ordered and zero gap (e4 / w2 climbed 17 in small steps)
    "chat-three-four-options": Stage(
        seed=18,
        options=(3, 4),
        distractors=(1, 1),
        situations=(8, 12),
        leads=False,
        template_set=(16,),
        fixed_options=True,
        shuffle_clauses=0.0,
        article=0.0,
        chat=1.0,
    ),
    # 19: 2-4 options with the clauses in any order and "the " sometimes (stage 1 in the chat layout)
    "chat-shuffled": Stage(
        seed=19,
        options=(2, 4),
        distractors=(1, 1),
        situations=(8, 12),
        leads=False,
        template_set=(16,),
        fixed_options=True,
        chat=1.0,
    ),
    # 20-22 widen the gap between a condition and its letter one step at a time:
    # 20: one token ("W: L", "W means L.", "When W → L") besides "W L"
    "gap-one-token": Stage(
        seed=20,
        options=(2, 4),
        distractors=(1, 1),
        situations=(8, 12),
        leads=False,
        template_set=(16, 6, 2, 1),
        fixed_options=True,
        chat=1.0,
    ),
    # 21: + two tokens ("If W, choose L.", "On W do L.")
    "gap-two-tokens": Stage(
        seed=21,
        options=(2, 4),
        distractors=(1, 1),
        situations=(8, 12),
        leads=False,
        template_set=(16, 6, 2, 1, 0, 3),
        fixed_options=True,
        chat=1.0,
    ),
    # 22: + the letter before its condition ("Pick L when W.", "Choose L whenever W.", "L for W.")
    "letter-first": Stage(
        seed=22,
        options=(2, 4),
        distractors=(1, 1),
        situations=(8, 12),
        leads=False,
        template_set=(16, 6, 2, 1, 0, 3, 5, 7, 12),
        fixed_options=True,
        chat=1.0,
    ),
    # 23-25 lead from the ladder's end to the word tables of stages 12-13, one knob group at a time:
    # 23: lead words and joiners, 1-2 distractors, letters out of order (stage 15's knobs)
    "leads-and-joiners": Stage(
        seed=23,
        options=(2, 4),
        distractors=(1, 2),
        situations=(6, 10),
        template_set=(16, 6, 2, 1, 0, 3, 5, 7, 12),
        shuffled_letters=0.3,
        fixed_options=True,
        chat=1.0,
    ),
    # 24: content words in the option texts (they share the prefix with the conditions)
    "option-texts": Stage(
        seed=24,
        options=(2, 4),
        distractors=(1, 2),
        situations=(6, 10),
        template_set=(16, 6, 2, 1, 0, 3, 5, 7, 12),
        shuffled_letters=0.3,
        chat=1.0,
    ),
    # 25: the word tables of stages 12-13 alone (1-2 words per condition, rare words, partial
    # matches in distractors, the first 8 templates with option-text clauses, case variation)
    "word-tables": replace(_WORD_TABLES, seed=25),
    # 26-27 split the step from 24 to 25 (the recipe's word ladder walks 24 -> 26 -> 27 -> 25):
    # 26: stage 24 with 1-2 words per condition, half of them rare (split into subwords)
    "rare-conditions": Stage(
        seed=26,
        options=(2, 4),
        cond_words=(1, 2),
        pool=0.5,
        distractors=(1, 2),
        situations=(6, 10),
        template_set=(16, 6, 2, 1, 0, 3, 5, 7, 12),
        shuffled_letters=0.3,
        chat=1.0,
    ),
    # 27: + up to 4 distractors, some holding part of another option's condition, case variation
    "partial-matches": Stage(
        seed=27,
        options=(2, 4),
        cond_words=(1, 2),
        pool=0.5,
        distractors=(1, 4),
        partial=0.3,
        situations=(6, 10),
        template_set=(16, 6, 2, 1, 0, 3, 5, 7, 12),
        shuffled_letters=0.3,
        case=0.05,
        chat=1.0,
    ),
    # 30: stage 13 with half the place phrases' nouns drawn from every dictionary word: a rare,
    # barely trained token in "high up a N" tipped the shipped model's answer (N = "hill")
    "rare-places": Stage(
        seed=30,
        options=(2, 4),
        cond_words=(1, 2),
        pool=0.5,
        distractors=(1, 4),
        partial=0.3,
        templates=8,
        shuffled_letters=0.3,
        case=0.05,
        chat=1.0,
        scene=0.85,
        scene_level=3,
        situations=(6, 10),
        place_pool=0.5,
    ),
    # 37: the mix (_MIXED) with "If the X is still D of the N, choose L." clauses in most same / opposite
    # word relational tables, aimed at any option (the plain "is still" clause always names the
    # "wait" option, which taught "still -> wait": jz34b answered mountaincar's "still left of the
    # middle -> push right" with "do nothing")
    "still-places": replace(_MIXED, seed=37, still_places=0.7),
    # 47: the binding drill (relational word tables only, two options, exactly one other thing, always
    # in the other direction word) with evidence marks (corpus/marks.py) for train.py --aux-binding
    "binding-drill": replace(
        _MIXED,
        seed=47,
        scene=0.0,
        relational=1.0,
        options=(2, 2),
        rel_distractors=(1, 1),
        situations=(8, 12),
        marks=True,
    ),
    # 51: the mix with a third of the scene situations reworded at level 2, letters mostly out of
    # order, neutral-aimed still clauses (scene level 6) and both kinds of evidence marks: the
    # marked models read "the car is moving right" as "the car is still right of the middle"
    "reworded-marked": replace(
        _MIXED,
        seed=51,
        still_places=0.7,
        scene_shuffle=0.8,
        shuffled_letters=0.6,
        rephrase=0.3,
        reword_level=2,
        scene_level=6,
        marks=True,
        scene_marks=True,
    ),
    # 53: the lookup drill (relational scene tables only, each with two "still D of the N" clauses
    # naming options by their text, three situations in four still ones) with clause marks
    "lookup-drill": replace(_MIXED, seed=53, scene=1.0, scene_level=7, situations=(8, 12), clause_marks=True),
    # 61: stage 51 with clause marks, relational word tables (0.8) mostly of four options in two
    # direction pairs, more scene place phrases ("along the bottom of the N"), the hazard's phrase
    # first in half the toward / away scene situations, and their directions in other words half the time
    # ("the goal is 9 steps below", "a hole is on the left side"): alone, "the goal is 3 steps
    # downward" is A 0.37 (B 0.21) on je8, and these forms never occur in the scenes
    "final-mix": replace(_MIX61, seed=61),
    # 62: the marked lookup drill (53) with the still clauses naming their option by letter half
    # the time: a direct joint without it (jr4) read mountaincar's "If the car is still left of
    # the middle, choose C. If ... still right ..., choose B." at B 0.6 for both still situations
    # (je10: 1.00), i.e. it had not learnt to tell the clauses apart by their one direction word
    "lookup-by-letter": replace(
        _MIXED, seed=62, scene=1.0, scene_level=8, situations=(8, 12), clause_marks=True
    ),
    # 65: stage 61 with most scene situations reworded (0.7 instead of 0.3): after a word-table
    # phase the reworded lunarlander items ("falling too quickly") fall to the default option
    "reworded": replace(_MIX61, seed=65, rephrase=0.7),
    # 66: stage 65 with most scene defaults' texts drawn wide (scenes.IDLE, actions, dictionary
    # nouns): with only NEUTRAL's idle phrases jq1 found the default by its text and answered
    # lunarlander's "steady" items with another letter once "do nothing" (held out) was not A
    "default-texts": replace(_MIX61, seed=66, rephrase=0.7, default_text=0.7),
    # 67: stage 66 with half the scene tables event tables (corpus/events.py: "If the kettle is
    # whistling, choose A; if the dog barks, choose B."), which jd1 read at chance
    "events": replace(_MIX61, seed=67, rephrase=0.7, default_text=0.7, events=0.5),
    # 68: stage 25's word tables with a third of the content words made up (two dictionary words
    # spliced: "lavish" + "trestles" -> "lavtles"): km reads the match tables at 0.93 with training
    # words, 0.88 with unseen ones, so part of the matching leans on words it knows; a made-up
    # word can only be matched by its spelling
    "made-up-words": replace(_WORD_TABLES, seed=68, made_up=0.3),
    # 69: stage 67 with every scene table an event table, and clauses sharing a noun or a predicate
    # twice as often: soo reads event tables at 0.78, 0.60 with five options, and its misses take
    # the clause with the right noun and another predicate ("the din negatives" -> "if the din
    # intimates")
    "events-shared": replace(_MIX61, seed=69, rephrase=0.7, default_text=0.7, events=1.0, event_shared=0.6),
    # 71: stage 69 with half the event tables' predicates (and their distractors') all of one form,
    # mostly "is V-ing": soo reads three-clause tables whose predicates all end in "is ...ing" at
    # 0.63 (the kettle table's kind: "is whistling", "is burning", "is barking" differ only in
    # their stems, which the BPE splits), two-clause ones with mixed forms at 0.91
    "events-one-form": replace(
        _MIX61, seed=71, rephrase=0.7, default_text=0.7, events=1.0, event_shared=0.6, event_uniform=0.5
    ),
    # 74: stage 71 with half the event tables' predicates ending in one BPE token: soo matches a
    # clause by its predicate's last token. With clauses 2 and 3 "the bread is burning" / "the dog
    # is X" it reads 8 of 12 letterings for X = barking, jumping, sleeping (" b"+"ark"+"ing",
    # " jump"+"ing": the same last token "ing") and 12 of 12 for eating, sitting, crying ("ating",
    # "ting", "ying"); "howling" fails beside "whistling" (both "ling"). One cycle after kx (kz):
    # such tables 0.46 -> 0.59, the kettle tables 21/24 and 15/18
    "events-same-end": replace(
        _MIX61,
        seed=74,
        rephrase=0.7,
        default_text=0.7,
        events=1.0,
        event_shared=0.6,
        event_uniform=0.5,
        event_same_end=0.5,
    ),
}


# the seeds unique and set; STAGES in curriculum order (their seeds ascending)
assert sorted(st.seed for st in STAGES.values()) == [st.seed for st in STAGES.values()]
assert all(st.seed >= 0 for st in STAGES.values()) and len({st.seed for st in STAGES.values()}) == len(STAGES)
BY_SEED = {st.seed: name for name, st in STAGES.items()}


def name_of(x: str | int) -> str:
    """A stage's name from its name or its seed (the number checkpoints, logs and command lines
    from before the stages were named hold)."""
    if isinstance(x, int) or (isinstance(x, str) and x.isdigit()):
        if int(x) in BY_SEED:
            return BY_SEED[int(x)]
    elif x in STAGES:
        return x
    raise KeyError(f"no curriculum stage {x!r} (the stages: {', '.join(STAGES)})")


def stage(x: str | int) -> Stage:
    return STAGES[name_of(x)]


def order(x: str | int) -> int:
    """A stage's place in the curriculum (promotion and replay ranges follow it)."""
    return list(STAGES).index(name_of(x))
