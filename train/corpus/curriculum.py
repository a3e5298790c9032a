"""Curriculum stages: one table of knobs per stage, from the easiest probe to the full task.

Issue 4 measured that the "which condition matches" skill sits behind a long plateau that
only short, easy examples cross quickly (2 options, exact words). Each stage widens one or
two things at a time: 2 options -> 6; common exact words -> rare words (split into
subwords) -> inflections / synonyms / reordering -> all templates, distractors, defaults,
relational and bucketed-number rules, and the chat layout.
"""
from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Stage:
    options: tuple[int, int] = (2, 2)        # min/max options per table
    cond_words: tuple[int, int] = (1, 1)     # words per condition
    conds_per_option: int = 1                # up to this many conditions joined by "or"
    pool: float = 0.0                        # share of content words from the full wamerican list (rest: common words)
    distractors: tuple[int, int] = (1, 2)    # distractor phrases in a situation
    partial: float = 0.0                     # prob. a distractor holds part of another option's condition
    partial_repeat: float = 0.0              # prob. such a part is said twice (two phrases): it outnumbers the answer
    partial_whole: bool = True               # False: a situation's parts of one condition never add up to all its words
    variation: float = 0.0                   # prob. a matched word is inflected or replaced by a synonym
    reorder: float = 0.0                     # prob. the condition's words are reordered in the situation
    modifiers: float = 0.0                   # prob. of "slightly", "very", ... inserted
    templates: int = 1                       # how many rule templates are in use (1 = only "If X, choose L.")
    template_set: tuple[int, ...] = ()       # if set: only these RULE_CLAUSES indices (overrides templates)
    letter_first: float = 0.0                # prob. a clause takes one of the pool's letter-first templates ("Pick L when C.")
    shuffled_letters: float = 0.0            # prob. letters are not A,B,C.. in order
    default: float = 0.0                     # prob. the table has an "otherwise" option
    relational: float = 0.0                  # prob. of a same/opposite/toward rule
    bucket: float = 0.0                      # prob. of a bucketed-number / comparison rule
    chat: float = 0.0                        # prob. of the chat layout (else the compact one)
    case: float = 0.0                        # prob. per word of Title / UPPER case variation
    situations: tuple[int, int] = (4, 8)     # situations packed per rule table
    fixed_options: bool = False              # option texts from templates.FIXED_ACTIONS (no content words)
    leads: bool = True                       # situation lead words ("Now", "You see") and varied joiners
    shuffle_clauses: float = 0.5             # prob. the rule's clauses are not in option order
    article: float = 0.25                    # prob. a condition is written with a leading "the "
    scene: float = 0.0                       # prob. of a plain-English scene table (corpus/scenes.py)
    scene_level: int = 2                     # 0: "same way"/"toward" rules only, no distractors; 2: all;
    #                                          7, 8: still-clause lookup drills (by text; by letter half the time)
    rephrase: float = 0.0                    # prob. a scene situation is reworded (corpus/reword.py)
    reword_level: int = 1                    # 2: more verb synonyms, modifiers, distractor directions
    place_pool: float = 0.0                  # prob. a scene place's noun is any dictionary word (rare tokens)
    more_places: bool = False                # scene place phrases from phrases.MORE_PLACES (part nouns: "the bottom of")
    hazard_first: float = 0.0                # prob. a toward / away scene situation opens with the hazard's phrase
    place_forms: float = 0.0                 # prob. its phrases say the direction in other words ("9 steps below")
    front: float = 0.0                       # prob. a scene situation's first tail phrase moves before the subject
    still_places: float = 0.0                # prob. a same/opposite word relational table has "still D of the N" clauses
    marks: bool = False                      # relational word tables mark subject noun + direction (corpus/marks.py)
    scene_marks: bool = False                # the same in relational scenes (not in reworded situations)
    clause_marks: bool = False               # rule clauses mark the option they name, with its letter
    clause_conditions: bool = False          # ... and their condition too (stages 54-55)
    match_marks: int = 0                     # match-table situations mark condition words with their option's letter:
                                             # 1 the answering condition's words, 2 partial matches' words too
    rel_pairs2: float = 0.3                  # prob. a relational word table with room for 4 options has two direction pairs
    rel_distractors: tuple[int, int] | None = None  # other things' phrases in a relational word table's situation
                                             # (None: 0 .. distractors[1] - 2)
    scene_shuffle: float = 0.35              # prob. a scene table's letters are not A, B, C.. (half of those listed out of order)
    default_text: float = 0.0                # prob. a scene table's "otherwise" option is not an idle phrase of scenes.NEUTRAL
    events: float = 0.0                      # prob. a scene table is an everyday-English event table (corpus/events.py)
    event_shared: float = 0.3                # prob. (each) that an event table's clauses share a noun / a predicate
    event_tails: float = 0.0                 # prob. an event situation's condition ends in a place ("at the door")
    event_uniform: float = 0.0               # prob. an event table's predicates all take one form ("is V-ing")
    event_marks: bool = False                # event tables carry the clause marks (clause_marks / _conditions)
    event_near: float = 0.0                  # prob. a one-form event table's predicates all start with one letter
    event_same_end: float = 0.0              # prob. an event table's predicates all end in one BPE token
    made_up: float = 0.0                     # prob. a match table's content word is made up (tables.made_up_word)


# stage 25's knobs: the word tables of stages 12-13 alone (stage 63 makes them hard)
_WORD_TABLES = Stage(options=(2, 4), cond_words=(1, 2), pool=0.5, distractors=(1, 4), partial=0.3, templates=8,
                     shuffled_letters=0.3, case=0.05, chat=1.0, situations=(6, 10))

# stages 34-41 share stage 14's knobs with half the tables scenes and 60 % of the word tables relational
_MIXED = Stage(options=(2, 4), cond_words=(1, 2), pool=0.5, distractors=(1, 4), partial=0.3, templates=8,
               shuffled_letters=0.3, case=0.05, chat=1.0, scene=0.5, scene_level=4, situations=(6, 10),
               place_pool=0.5, relational=0.6)

# stage 61's knobs: the joint's final mix (stage 65 rewords most of its scene situations)
_MIX61 = replace(_MIXED, still_places=0.7, scene_shuffle=0.8, shuffled_letters=0.6, rephrase=0.3, reword_level=2,
                 scene_level=6, marks=True, scene_marks=True, clause_marks=True, relational=0.8, rel_pairs2=0.8,
                 more_places=True, hazard_first=0.5, place_forms=0.5)

STAGES: tuple[Stage, ...] = (
    # the plateau-crossing stage: short situations (the condition + one distractor word), many
    # per table; rule "W1 A. W2 B." with no token between a word and its letter, clauses in
    # option order, no article. Measured (train/README.md): this leaves chance at ~800 steps,
    # while the same stage with clauses shuffled stayed at chance for 2,600+ steps.
    Stage(distractors=(1, 1), situations=(8, 12), leads=False, template_set=(16,), fixed_options=True,
          shuffle_clauses=0.0, article=0.0),
    # clauses in either order: the letter must now be bound to its word (not to the clause's place)
    Stage(distractors=(1, 1), situations=(8, 12), leads=False, template_set=(16,), fixed_options=True),
    # 3-4 options, still zero gap: 2-option tables can be solved by checking one word (is A's
    # word in the situation?), which does not carry over; 3+ options need the real lookup.
    # Measured: 2-option-trained models sat at 0.46 on 3-option tables (chance 0.33).
    Stage(options=(3, 4), distractors=(1, 1), situations=(8, 12), leads=False, template_set=(16,), fixed_options=True,
          article=0.0),
    # one token between word and letter ("W: L") in half the clauses, up to 3 options
    Stage(options=(2, 3), distractors=(1, 2), situations=(6, 10), leads=False, template_set=(16, 6),
          fixed_options=True),
    Stage(options=(2, 3), cond_words=(1, 2), distractors=(1, 3), template_set=(16, 6, 6, 1, 0), shuffled_letters=0.1,
          fixed_options=True),
    Stage(options=(2, 4), cond_words=(1, 2), pool=0.5, distractors=(1, 4), partial=0.3, templates=8,
          shuffled_letters=0.3, case=0.05, chat=0.2),
    Stage(options=(2, 5), cond_words=(1, 3), conds_per_option=2, pool=0.8, distractors=(1, 4), partial=0.4,
          variation=0.3, reorder=0.2, modifiers=0.3, templates=99, shuffled_letters=0.4, default=0.15,
          relational=0.1, bucket=0.1, chat=0.5, case=0.08),
    Stage(options=(2, 6), cond_words=(1, 3), conds_per_option=3, pool=0.9, distractors=(0, 5), partial=0.5,
          variation=0.4, reorder=0.3, modifiers=0.4, templates=99, shuffled_letters=0.5, default=0.2,
          relational=0.15, bucket=0.15, chat=0.8, case=0.1, situations=(3, 8)),
    # plain-English scenes in the runtime's chat layout (what users and perceivers write),
    # mixed with stage-4-like word tables so the general matching skill stays
    Stage(options=(2, 5), cond_words=(1, 2), pool=0.5, distractors=(1, 4), partial=0.3, templates=8,
          shuffled_letters=0.3, case=0.05, chat=1.0, scene=1.0, situations=(4, 8)),
    # 9: the option-text route alone: "go the way the X is moving" -> the option whose text
    # holds the situation's direction word (few distinct direction words: crosses fast)
    Stage(options=(2, 4), chat=1.0, scene=1.0, scene_level=0, situations=(8, 12)),
    # 10: all relational modes (opposite, away), distractor things with their own directions,
    # a "do nothing" option and clauses that name an option by its text
    Stage(options=(2, 5), chat=1.0, scene=1.0, scene_level=1, situations=(6, 10)),
    # 11: + clause tables ("If the X is V-ing D, choose L"), the full scene mix (as stage 8)
    Stage(options=(2, 5), chat=1.0, scene=1.0, scene_level=2, situations=(6, 10)),
    # 12: scenes with word tables mixed back in, so the general matching skill is kept
    # (`options` binds the word tables; scene tables have 2-5 options of their own)
    Stage(options=(2, 4), cond_words=(1, 2), pool=0.5, distractors=(1, 4), partial=0.3, templates=8,
          shuffled_letters=0.3, case=0.05, chat=1.0, scene=0.75, situations=(4, 8)),
    # 13: mixed clause tables (clauses in different forms, a default in any slot, option texts
    # whose directions disagree with the clauses') and still clauses aimed at the options whose
    # text does not hold their direction, over the stage-12 mix
    Stage(options=(2, 4), cond_words=(1, 2), pool=0.5, distractors=(1, 4), partial=0.3, templates=8,
          shuffled_letters=0.3, case=0.05, chat=1.0, scene=0.85, scene_level=3, situations=(6, 10)),
    # 14: as 13, with more relational tables whose still clauses name their option by letter
    # half the time ("If the X is still left of the N, choose C.")
    Stage(options=(2, 4), cond_words=(1, 2), pool=0.5, distractors=(1, 4), partial=0.3, templates=8,
          shuffled_letters=0.3, case=0.05, chat=1.0, scene=0.85, scene_level=4, situations=(6, 10)),
    # 15: word tables alone in the chat layout, made easy: one common word per condition, the
    # letter named in the clause, fixed option texts (content words in the options stalled the
    # matching probe), 2-4 options. The scene recipe's models answer word tables at chance.
    Stage(options=(2, 4), distractors=(1, 2), template_set=(0, 1, 2, 3, 5, 6, 7, 16), shuffled_letters=0.3,
          fixed_options=True, chat=1.0, situations=(6, 10)),
    # 16: stage 0 in the chat layout (does the layout alone lengthen the plateau?)
    Stage(distractors=(1, 1), situations=(8, 12), leads=False, template_set=(16,), fixed_options=True,
          shuffle_clauses=0.0, article=0.0, chat=1.0),
    # 17: stage 16 with 3 options (2-option tables can be solved by checking A's word alone)
    Stage(options=(3, 3), distractors=(1, 1), situations=(8, 12), leads=False, template_set=(16,), fixed_options=True,
          shuffle_clauses=0.0, article=0.0, chat=1.0),
    # 18: 3-4 options, still ordered and zero gap (e4 / w2 climbed 17 in small steps)
    Stage(options=(3, 4), distractors=(1, 1), situations=(8, 12), leads=False, template_set=(16,), fixed_options=True,
          shuffle_clauses=0.0, article=0.0, chat=1.0),
    # 19: 2-4 options with the clauses in any order and "the " sometimes (stage 1 in the chat layout)
    Stage(options=(2, 4), distractors=(1, 1), situations=(8, 12), leads=False, template_set=(16,), fixed_options=True,
          chat=1.0),
    # 20-22 widen the gap between a condition and its letter one step at a time:
    # 20: one token ("W: L", "W means L.", "When W → L") besides "W L"
    Stage(options=(2, 4), distractors=(1, 1), situations=(8, 12), leads=False, template_set=(16, 6, 2, 1),
          fixed_options=True, chat=1.0),
    # 21: + two tokens ("If W, choose L.", "On W do L.")
    Stage(options=(2, 4), distractors=(1, 1), situations=(8, 12), leads=False, template_set=(16, 6, 2, 1, 0, 3),
          fixed_options=True, chat=1.0),
    # 22: + the letter before its condition ("Pick L when W.", "Choose L whenever W.", "L for W.")
    Stage(options=(2, 4), distractors=(1, 1), situations=(8, 12), leads=False,
          template_set=(16, 6, 2, 1, 0, 3, 5, 7, 12), fixed_options=True, chat=1.0),
    # 23-25 lead from the ladder's end to the word tables of stages 12-13, one knob group at a time:
    # 23: lead words and joiners, 1-2 distractors, letters out of order (stage 15's knobs)
    Stage(options=(2, 4), distractors=(1, 2), situations=(6, 10), template_set=(16, 6, 2, 1, 0, 3, 5, 7, 12),
          shuffled_letters=0.3, fixed_options=True, chat=1.0),
    # 24: content words in the option texts (they share the prefix with the conditions)
    Stage(options=(2, 4), distractors=(1, 2), situations=(6, 10), template_set=(16, 6, 2, 1, 0, 3, 5, 7, 12),
          shuffled_letters=0.3, chat=1.0),
    # 25: the word tables of stages 12-13 alone (1-2 words per condition, rare words, partial
    # matches in distractors, the first 8 templates with option-text clauses, case variation)
    _WORD_TABLES,
    # 26-27 split the step from 24 to 25 (the recipe's word ladder walks 24 -> 26 -> 27 -> 25):
    # 26: stage 24 with 1-2 words per condition, half of them rare (split into subwords)
    Stage(options=(2, 4), cond_words=(1, 2), pool=0.5, distractors=(1, 2), situations=(6, 10),
          template_set=(16, 6, 2, 1, 0, 3, 5, 7, 12), shuffled_letters=0.3, chat=1.0),
    # 27: + up to 4 distractors, some holding part of another option's condition, case variation
    Stage(options=(2, 4), cond_words=(1, 2), pool=0.5, distractors=(1, 4), partial=0.3, situations=(6, 10),
          template_set=(16, 6, 2, 1, 0, 3, 5, 7, 12), shuffled_letters=0.3, case=0.05, chat=1.0),
    # 28: stage 22 with 1-2 distractors: the second distractor is what stage 23 costs (session 7:
    # 0.71 with exactly 2 vs 0.85 with 1, at step 28,295 of the word branch)
    Stage(options=(2, 4), distractors=(1, 2), situations=(8, 12), leads=False,
          template_set=(16, 6, 2, 1, 0, 3, 5, 7, 12), fixed_options=True, chat=1.0),
    # 29: stage 13 with half the scene situations reworded (direction phrasing, verb synonyms,
    # a distractor in front or as a concession, "is not moving" for "is still")
    Stage(options=(2, 4), cond_words=(1, 2), pool=0.5, distractors=(1, 4), partial=0.3, templates=8,
          shuffled_letters=0.3, case=0.05, chat=1.0, scene=0.85, scene_level=3, situations=(6, 10), rephrase=0.5),
    # 30: stage 13 with half the place phrases' nouns drawn from every dictionary word: a rare,
    # barely trained token in "high up a N" tipped the shipped model's answer (N = "hill")
    Stage(options=(2, 4), cond_words=(1, 2), pool=0.5, distractors=(1, 4), partial=0.3, templates=8,
          shuffled_letters=0.3, case=0.05, chat=1.0, scene=0.85, scene_level=3, situations=(6, 10),
          place_pool=0.5),
    # 31: stages 29 and 30 together (reworded situations and rare place nouns over stage 13)
    Stage(options=(2, 4), cond_words=(1, 2), pool=0.5, distractors=(1, 4), partial=0.3, templates=8,
          shuffled_letters=0.3, case=0.05, chat=1.0, scene=0.85, scene_level=3, situations=(6, 10),
          rephrase=0.5, place_pool=0.5),
    # 32: stage 30 with a third of the scene situations opening with a distractor or place
    # ("high on a N, the S is moving left"): the rephrasings the shipped model misses are mostly
    # fronted phrases, and fronting alone keeps every word as the tables write it
    Stage(options=(2, 4), cond_words=(1, 2), pool=0.5, distractors=(1, 4), partial=0.3, templates=8,
          shuffled_letters=0.3, case=0.05, chat=1.0, scene=0.85, scene_level=3, situations=(6, 10),
          place_pool=0.5, front=0.3),
    # 33: stage 30 with more word tables, half of them relational ("Move away from the X." with
    # any noun as X): no other chat stage has them, and issue 4's relational row sat at 0.52
    Stage(options=(2, 4), cond_words=(1, 2), pool=0.5, distractors=(1, 4), partial=0.3, templates=8,
          shuffled_letters=0.3, case=0.05, chat=1.0, scene=0.7, scene_level=3, situations=(6, 10),
          place_pool=0.5, relational=0.5),
    # 34: stages 33 and 14 in one stage: relational word tables (60 % of the word tables) next to
    # stage 14's still clauses named by letter. Alternating 33 and 14 traded one for the other
    # (jy1/jy2: relational up, a mountaincar "still" item lost).
    _MIXED,
    # 35: stage 34 with a third of the scene situations reworded (corpus/reword.py)
    replace(_MIXED, rephrase=0.3),
    # 36: relational word tables alone (stage 34's knobs, no scenes): how fast the skill grows
    # when it has the whole batch (replay keeps the rest)
    replace(_MIXED, scene=0.0, relational=1.0),
    # 37: stage 34 with "If the X is still D of the N, choose L." clauses in most same / opposite
    # word relational tables, aimed at any option (the plain "is still" clause always names the
    # "wait" option, which taught "still -> wait": jz34b answered mountaincar's "still left of the
    # middle -> push right" with "do nothing")
    replace(_MIXED, still_places=0.7),
    # 38: stage 37 with a third of the scene situations reworded (stage 35 did it over stage 34:
    # rephrasings 0.68 -> 0.72, but two exam items lost)
    replace(_MIXED, still_places=0.7, rephrase=0.3),
    # 39: stage 37 with letters out of order in most tables: the relabelled mountaincar and
    # lunarlander exams ("do nothing" listed as B or C instead of A) were answered by the letter
    # the option had before relabelling, and 65 % of the scene tables have the letters in order
    replace(_MIXED, still_places=0.7, scene_shuffle=0.8, shuffled_letters=0.6),
    # 40: stage 39 with a third of the scene situations reworded (stage 38's rewording, which at
    # lr 5e-4 cost mountaincar items; stage 39 kept them at 3e-4)
    replace(_MIXED, still_places=0.7, scene_shuffle=0.8, shuffled_letters=0.6, rephrase=0.3),
    # 41: stage 40 with scene level 5: the scene still clauses always name their option by its
    # text (level 4: by letter half the time); with letters the mountaincar still items are
    # certain, with texts near chance when the direction word is in another option's text
    replace(_MIXED, still_places=0.7, scene_shuffle=0.8, shuffled_letters=0.6, rephrase=0.3, scene_level=5),
    # 42: stage 40 with reword level 2: more verb synonyms ("races", "comes down", "leads"),
    # modifiers ("too quickly"), distractors' directions reworded too and sometimes first (the
    # rephrasing row's misses; level 1 rewrote only the condition's phrase, a shortcut to it)
    replace(_MIXED, still_places=0.7, scene_shuffle=0.8, shuffled_letters=0.6, rephrase=0.3, reword_level=2),
    # 43: stage 42 with scene level 6: most relational scene tables have a neutral option, and
    # one still clause then names it by its text ("still right of the N, do nothing")
    replace(_MIXED, still_places=0.7, scene_shuffle=0.8, shuffled_letters=0.6, rephrase=0.3, reword_level=2,
            scene_level=6),
    # 44: the binding drill: relational word tables only, 2 options, exactly one other thing
    # moving or lying in the other direction word. jz40s reads these at 0.75 with one other
    # thing, what picking either phrase at random gives (0.98 with none): it has not bound a
    # direction word to its noun yet, so this isolates that one skill
    replace(_MIXED, scene=0.0, relational=1.0, options=(2, 2), rel_distractors=(1, 1), situations=(8, 12)),
    # 45: the lookup drill: scene relational tables only, each with two "still D of the N"
    # clauses naming options by their text, three situations in four still ones. jz40s-jz43 read
    # such clauses at 0.52-0.58 when the text names another direction than the clause ("still
    # right of the N, push left") and 0.63-0.78 for "do nothing", but at 0.95-1.00 by letter
    replace(_MIXED, scene=1.0, scene_level=7, situations=(8, 12)),
    # 46: stage 44 with common words only (nouns are single tokens more often): jz44 stayed at
    # chance (0.48-0.52) on stage 44 for its first 1,000 steps at lr 5e-4
    replace(_MIXED, scene=0.0, relational=1.0, options=(2, 2), rel_distractors=(1, 1), situations=(8, 12),
            pool=0.0, case=0.0),
    # 47: stage 44 with evidence marks (corpus/marks.py) for train.py --aux-binding
    replace(_MIXED, scene=0.0, relational=1.0, options=(2, 2), rel_distractors=(1, 1), situations=(8, 12),
            marks=True),
    # 48: stage 40 with evidence marks on its relational word tables
    replace(_MIXED, still_places=0.7, scene_shuffle=0.8, shuffled_letters=0.6, rephrase=0.3, marks=True),
    # 49: stage 42 (reword level 2) with evidence marks: the drill's runs lost rephrasings
    replace(_MIXED, still_places=0.7, scene_shuffle=0.8, shuffled_letters=0.6, rephrase=0.3, reword_level=2,
            marks=True),
    # 50: stage 48 with the scenes' relational situations marked too: the drilled models
    # (ja6) answer mountaincar's "moving right" by its "still right of the middle" clause
    replace(_MIXED, still_places=0.7, scene_shuffle=0.8, shuffled_letters=0.6, rephrase=0.3, marks=True,
            scene_marks=True),
    # 51: stage 43 (reword level 2, neutral-aimed still clauses) with both kinds of marks: the
    # marked models read "the car is moving right" as "the car is still right of the middle"
    replace(_MIXED, still_places=0.7, scene_shuffle=0.8, shuffled_letters=0.6, rephrase=0.3, reword_level=2,
            scene_level=6, marks=True, scene_marks=True),
    # 52: stage 51 with clause marks: every rule clause marks the option it names (its letter or
    # its text) with that letter, for train.py --aux-clause: the drilled models trade mountaincar's
    # two still items (ja10, ja11), and lookup by text is still near chance
    replace(_MIXED, still_places=0.7, scene_shuffle=0.8, shuffled_letters=0.6, rephrase=0.3, reword_level=2,
            scene_level=6, marks=True, scene_marks=True, clause_marks=True),
    # 53: stage 45 (the lookup drill) with clause marks
    replace(_MIXED, scene=1.0, scene_level=7, situations=(8, 12), clause_marks=True),
    # 54, 55: stages 52, 53 with the clauses' conditions marked too (session 15: the answer row
    # learnt to point at the matching clause, but lookup by text fell to 0.33-0.40)
    replace(_MIXED, still_places=0.7, scene_shuffle=0.8, shuffled_letters=0.6, rephrase=0.3, reword_level=2,
            scene_level=6, marks=True, scene_marks=True, clause_marks=True, clause_conditions=True),
    replace(_MIXED, scene=1.0, scene_level=7, situations=(8, 12), clause_marks=True, clause_conditions=True),
    # 56: stage 52 with more relational word tables (0.8 of them), most (0.8) of four options in
    # two direction pairs: jc1 reads 2- and 3-option relational tables at 0.98-0.99 but 4-option
    # ones at 0.69, even with one phrase ("heading upward" -> "out": the other pair's first word)
    replace(_MIXED, still_places=0.7, scene_shuffle=0.8, shuffled_letters=0.6, rephrase=0.3, reword_level=2,
            scene_level=6, marks=True, scene_marks=True, clause_marks=True, relational=0.8, rel_pairs2=0.8),
    # 57, 58: word match tables alone (stage 25's knobs) with every condition marked with its letter
    # in the rule and, in the situation, the words of the answering condition (58) or of any
    # condition, partial matches included (57), for train.py --aux-clause at layer 1: the match
    # tables sat at 0.86-0.87 (unseen words 0.78) from session 10 to 16 whatever the replay, and
    # many misses are partial matches ("catch history" -> A with only "history" present)
    replace(_MIXED, scene=0.0, relational=0.0, clause_marks=True, clause_conditions=True, match_marks=2),
    replace(_MIXED, scene=0.0, relational=0.0, clause_marks=True, clause_conditions=True, match_marks=1),
    # 59: stage 56 with more scene place phrases ("along the bottom of the N", "by the N"): jd6
    # read "the car rolls right along the bottom of the valley" as "push left" (A 0.69)
    replace(_MIXED, still_places=0.7, scene_shuffle=0.8, shuffled_letters=0.6, rephrase=0.3, reword_level=2,
            scene_level=6, marks=True, scene_marks=True, clause_marks=True, relational=0.8, rel_pairs2=0.8,
            more_places=True),
    # 60: stage 59 with the hazard's phrase first in half the toward / away scene situations that
    # have one (and their goal and its direction marked): the soup of session 17 reads "with a
    # hole on the left side, the goal lies down" as "walk left" (A 0.97) but "the goal lies down"
    # alone as "walk down"; the scenes put the goal's phrase first in ~90 % of these situations
    replace(_MIXED, still_places=0.7, scene_shuffle=0.8, shuffled_letters=0.6, rephrase=0.3, reword_level=2,
            scene_level=6, marks=True, scene_marks=True, clause_marks=True, relational=0.8, rel_pairs2=0.8,
            more_places=True, hazard_first=0.5),
    # 61: stage 60 with the toward / away scene phrases' directions in other words half the time
    # ("the goal is 9 steps below", "a hole is on the left side"): alone, "the goal is 3 steps
    # downward" is A 0.37 (B 0.21) on je8, and these forms never occur in the scenes
    _MIX61,
    # 62: the marked lookup drill (53) with the still clauses naming their option by letter half
    # the time: a direct joint (jr4, session 21) read mountaincar's "If the car is still left of
    # the middle, choose C. If ... still right ..., choose B." at B 0.6 for both still situations
    # (je10: 1.00), i.e. it had not learnt to tell the clauses apart by their one direction word
    replace(_MIXED, scene=1.0, scene_level=8, situations=(8, 12), clause_marks=True),
    # 63: stage 25's word tables made hard where jr5n misses them (session 23): most distractors
    # hold part of another condition, often twice ("labor and labor and celebrity graveyard" ->
    # "hide labor" 0.77), and half the clauses put the letter first, so the next clause's letter
    # follows a condition ("Pick B when masonic. Pick C when moment knelled." -> C for masonic)
    replace(_WORD_TABLES, partial=0.6, partial_repeat=0.4, letter_first=0.5),
    # 64: stage 25's word tables where a condition's word may come inflected or as a synonym, with
    # modifiers, reordering and "otherwise" options: a phase of plain word tables (25) or of stage
    # 63 pushes lunarlander's reworded "comes down too fast" to its default (A 0.54 over C), as
    # if only the exact words could match
    replace(_WORD_TABLES, variation=0.3, reorder=0.2, modifiers=0.3, default=0.15),
    # 65: stage 61 with most scene situations reworded (0.7 instead of 0.3): after a word-table
    # phase the reworded lunarlander items ("falling too quickly") fall to the default option
    replace(_MIX61, rephrase=0.7),
    # 66: stage 65 with most scene defaults' texts drawn wide (scenes.IDLE, actions, dictionary
    # nouns): with only NEUTRAL's idle phrases jq1 found the default by its text and answered
    # lunarlander's "steady" items with another letter once "do nothing" (held out) was not A
    replace(_MIX61, rephrase=0.7, default_text=0.7),
    # 67: stage 66 with half the scene tables event tables (corpus/events.py: "If the kettle is
    # whistling, choose A; if the dog barks, choose B."), which jd1 read at chance
    replace(_MIX61, rephrase=0.7, default_text=0.7, events=0.5),
    # 68: stage 25's word tables with a third of the content words made up (two dictionary words
    # spliced: "lavish" + "trestles" -> "lavtles"): km reads the match tables at 0.93 with training
    # words, 0.88 with unseen ones, so part of the matching leans on words it knows; a made-up
    # word can only be matched by its spelling
    replace(_WORD_TABLES, made_up=0.3),
    # 69: stage 67 with every scene table an event table, and clauses sharing a noun or a predicate
    # twice as often: soo reads event tables at 0.78, 0.60 with five options, and its misses take
    # the clause with the right noun and another predicate ("the din negatives" -> "if the din
    # intimates")
    replace(_MIX61, rephrase=0.7, default_text=0.7, events=1.0, event_shared=0.6),
    # 70: stage 69 with half the situations' conditions ending in a place ("the dog is barking at
    # the door") and some after a one-word lead ("Smoke: the bread is burning."), the runtime
    # test's natural tables' wording; it did not help them (kt, session 30; session 31 found their
    # misses are "burning" read as "barking" and back: see stage 73)
    replace(_MIX61, rephrase=0.7, default_text=0.7, events=1.0, event_shared=0.6, event_tails=0.5),
    # 71: stage 69 with half the event tables' predicates (and their distractors') all of one form,
    # mostly "is V-ing": soo reads three-clause tables whose predicates all end in "is ...ing" at
    # 0.63 (the kettle table's kind: "is whistling", "is burning", "is barking" differ only in
    # their stems, which the BPE splits), two-clause ones with mixed forms at 0.91
    replace(_MIX61, rephrase=0.7, default_text=0.7, events=1.0, event_shared=0.6, event_uniform=0.5),
    # 72: stage 71 with clause marks on the event tables, condition and letter ("if the
    # \ue012bread is burning\ue022, choose \ue012B\ue022"; the word tables' conditions too), so
    # train.py --aux-clause asks layer 1 to hold each condition's letter at its tokens: soo and kr
    # take the bread clause for "the dog is barking" and the dog clause for "the bread is burning"
    replace(_MIX61, rephrase=0.7, default_text=0.7, events=1.0, event_shared=0.6, event_uniform=0.5,
            clause_conditions=True, event_marks=True),
    # 73: stage 71 with most one-form event tables' predicates starting with one letter ("is
    # barking", "is burning", "is bowling"): soo's kettle misses are the bread and dog clauses
    # taken for each other; with "the bread is smoking" or "the cat is meowing" in their place it
    # reads all twelve letterings (with "the toast is burning", "the dog is howling" or "the cat
    # is barking" it does not), so they are a reading of the words, not the letter binding
    # session 30 suspected. It did not help them either (kw, session 31: 18/24, 14/18), and soo
    # reads alike one-form tables no worse than other one-form ones (0.71 / 0.70)
    replace(_MIX61, rephrase=0.7, default_text=0.7, events=1.0, event_shared=0.6, event_uniform=0.5, event_near=0.7),
    # 74: stage 71 with half the event tables' predicates ending in one BPE token: soo matches a
    # clause by its predicate's last token. With clauses 2 and 3 "the bread is burning" / "the dog
    # is X" it reads 8 of 12 letterings for X = barking, jumping, sleeping (" b"+"ark"+"ing",
    # " jump"+"ing": the same last token "ing") and 12 of 12 for eating, sitting, crying ("ating",
    # "ting", "ying"); "howling" fails beside "whistling" (both "ling"). One cycle after kx (kz,
    # session 31): such tables 0.46 -> 0.59, the kettle tables 21/24 and 15/18
    replace(_MIX61, rephrase=0.7, default_text=0.7, events=1.0, event_shared=0.6, event_uniform=0.5,
            event_same_end=0.5),
)


def stage(n: int) -> Stage:
    return STAGES[max(0, min(n, len(STAGES) - 1))]


def with_chat(s: Stage, chat: float) -> Stage:
    return replace(s, chat=chat)
