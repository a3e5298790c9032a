"""Diagnostics: tools that look into a checkpoint, the corpus or the trainer (exams through a
checkpoint, where the match and event tables miss, the trainer's speed and the recipe's cost).
None is a stage of the recipe; each is run by a test (tests/train/); run one as
`python3 -m train.nano.diag.NAME`. Probes no test runs were removed (issue 61; git keeps them).
"""
