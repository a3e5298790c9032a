"""meadow-mind's training code, run as modules from the repository root: `python3 -m train.MODEL.NAME`.

`common/` is shared by every model's trainer; `nano/`, `small/` and `reader/` are one model each.
train/README.md says what is where.
"""
