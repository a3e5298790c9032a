"""meadow-mind's training code, run as modules from the repository root: `python3 -m train.NAME`.

The embedded model's recipe is `train/recipe.py`, run by `python3 -m train.run_recipe`;
train/README.md says what each module does.
"""
