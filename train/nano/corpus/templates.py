"""Sentence templates for rules, options and situations.

{C} = condition phrase, {L} = option letter, {T} = option text. Templates are ordered by
how early the curriculum uses them (Stage.templates takes the first n). Relational
templates deliberately avoid the exact wording of the built-in tasks' rules (held out).
"""

from train.common import prompt as P

RULE_CLAUSES = (
    "If {C}, choose {L}.",
    "When {C} → {L}",
    "{C} means {L}.",
    "On {C} do {L}.",
    "If {C}, {T}.",
    "Pick {L} when {C}.",
    "{C}: {L}",
    "Choose {L} whenever {C}.",
    "When {C}, {T}.",
    "{T} if {C}.",
    "- {C} → {L}",
    "If you see {C}, answer {L}.",
    "{L} for {C}.",
    "In case of {C}, take {L}.",
    "{C} → {T}",
    "Whenever {C}, go with {L}.",
    "{C} {L}",  # 16: zero gap between the condition and its letter (curriculum stage 0)
)

DEFAULT_CLAUSES = (
    "Otherwise choose {L}.",
    "Otherwise, {T}.",
    "Else {L}.",
    "In any other case, {L}.",
    "If nothing matches, choose {L}.",
    "Anything else → {L}",
)

CLAUSE_JOINERS = (" ", " ", "\n", "; ")

OPTION_LINES = ("{L}) {T}", "{L}) {T}", "{L}: {T}", "{L}. {T}", "({L}) {T}", "{L} - {T}")

# Option texts of the earliest stages: a small fixed set, so the prefix holds no content words
# besides the conditions (a toy probe, diag/probe_matching.py --noise, now in git history:
# content-word noise in the prefix stalls the matching skill; noise from a few fixed ids does not).
FIXED_ACTIONS = (
    "hop",
    "slide",
    "roll",
    "dash",
    "hold",
    "rest",
    "duck",
    "spin",
    "lean",
    "hop left",
    "hop right",
    "roll left",
    "roll right",
    "slide up",
    "slide down",
)

SITUATION_LEADS = ("", "", "", "Now ", "You see ", "There is ", "Here: ", "The scene: ", "State: ")

SITUATION_JOINERS = (", ", ", ", " and ", "; ", ", ", " with ")

MODIFIERS = ("slightly", "very", "fast", "slow", "a bit", "quickly", "slowly", "strongly", "barely")

# the contract's system message (train/common/prompt.py), then alternates (augmentation)
SYSTEM_PROMPTS = (
    P.SYSTEM,
    "You follow the rule. Answer with one option letter.",
    "Choose the option the rule gives for this situation. Reply with its letter.",
)
DEFAULT_SYSTEM = SYSTEM_PROMPTS[0]

# Relational rules: the answer is the option whose text shares the situation's direction
# word (same / toward) or its opposite (opposite / away).
DIRECTION_PAIRS = (
    ("left", "right"),
    ("up", "down"),
    ("north", "south"),
    ("east", "west"),
    ("forward", "backward"),
    ("upward", "downward"),
    ("clockwise", "counterclockwise"),
    ("in", "out"),
    ("ahead", "behind"),
    ("above", "below"),
)

SAME_RULES = (
    "{V} the same way the {N} is moving.",
    "{V} along with the {N}'s motion.",
    "Follow the {N}: {V} in its direction.",
    "Match the {N}'s direction when you {V}.",
    "{V} with the {N}, in the direction it goes.",
    "Go where the {N} is heading.",
)
OPPOSITE_RULES = (
    "{V} the opposite way to the {N}.",
    "{V} against the {N}'s motion.",
    "Counter the {N}: {V} away from where it is heading.",
    "Go opposite to the {N}'s direction.",
    "{V} in the reverse of the {N}'s direction.",
)
TOWARD_RULES = (
    "Move toward the {N}.",
    "{V} toward the {N}.",
    "Head for the {N}.",
    "Go to the {N}.",
)
AWAY_RULES = (
    "Move away from the {N}.",
    "{V} away from the {N}.",
    "Keep clear of the {N}.",
    "Flee from the {N}.",
)
MOVING_SITUATIONS = (
    "the {N} is moving {D}",
    "the {N} moves {D}",
    "the {N} is heading {D}",
    "{N} going {D}",
    "the {N} drifts {D}",
)
PLACE_SITUATIONS = ("the {N} is {D}", "the {N} lies {D}", "{N} to the {D}", "the {N} is {D} of you")

# Bucketed numbers: a perceiver turns numbers into these words.
SCALES = (
    ("very low", "low", "medium", "high", "very high"),
    ("tiny", "small", "large", "huge"),
    ("near", "far"),
    ("cold", "warm", "hot"),
    ("empty", "half full", "full"),
    ("few", "some", "many"),
    ("negative", "zero", "positive"),
)
COMPARATORS = (
    ("higher than", "lower than"),
    ("bigger than", "smaller than"),
    ("ahead of", "behind"),
    ("closer than", "farther than"),
)
