"""meadow-nano: the embedded model trained from scratch (train/nano/README.md).

The recipe is `recipe.py`, run by `python3 -m train.nano.run_recipe`.
"""
