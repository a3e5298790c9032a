"""Diagnostics: tools that look into a checkpoint, the corpus or the trainer (exams through a
checkpoint, where the match tables miss, probes, the trainer's speed and the recipe's cost).
None is a stage of the recipe; run each as `python3 -m train.nano.diag.NAME`.
"""
