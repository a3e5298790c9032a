"""The recipe's own stages for a few minutes each under train.py --device: how fast the
trainer runs on a lent GPU, and whether its eval curve follows the CPU runs' (their logs are in
the training cache, train/nano/checkpoints.md: checkpoints/nano/log.jsonl for the scene branch; the
events phase's words-74 stage from ka, checkpoints/events/, for the polish).

    python3 -m train.nano.diag.gpu_phases OUT_DIR [--device cuda] [--minutes 2.5] [--workers 0] [--together]

Runs three stages of train/nano/recipe.py with their own flags plus --device / --minutes / --workers:
the scene branch's first (scenes.curriculum), the word branch's first (words.narrow) and, from
--ka (a copy of the shipped checkpoint), the word-table stage of the last event cycle
(events.words-74, what kb ran). Each writes OUT_DIR/NAME.log; then one line per stage: step,
stage, loss, eval accuracy and steps/s at each eval. Machines without the word lists take
MEADOW_DICT / MEADOW_WORDNET (copies of /usr/share/dict/american-english, /usr/share/wordnet).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

from train.common import cache_dir
from ..recipe import Recipe
from ..run_recipe import ROOT, module, plan, train_argv

STAGES = (("scenes", "scenes", "curriculum"), ("words", "words", "narrow"), ("polish", "events", "words-74"))


def summary(log: str) -> str:
    rows = []
    with open(log) as f:
        for line in f:
            if line.startswith("{") and '"step"' in line:
                r = json.loads(line)
                rows.append(
                    f"{r['step']} {r['stage']} {r['loss']:.4f} {r['eval_acc']:.4f} {r['steps_per_s']:.1f}/s"
                )
    return "; ".join(rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--minutes", type=float, default=2.5, help="per stage")
    ap.add_argument("--workers", type=int, default=0, help="train.py --workers (0: the corpus inline)")
    ap.add_argument("--together", action="store_true", help="the three at once (default: one after another)")
    ap.add_argument("--ka", default=os.path.join(cache_dir.checkpoints_dir(), "events", "ckpt.pt"))
    a = ap.parse_args(argv)
    if not os.path.exists(a.ka):
        print(f"gpu_phases: no checkpoint {a.ka} (train/nano/restore_checkpoints.sh events)", file=sys.stderr)
        return 2
    os.makedirs(a.out, exist_ok=True)
    steps = {(st.phase.name, st.stage.name): st for st in plan(Recipe())}
    extra = ["--device", a.device, "--minutes", str(a.minutes), "--workers", str(a.workers)]
    limit = a.minutes * 60 + 60  # the stage's minutes and its last eval
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    with tempfile.TemporaryDirectory() as tmp:
        procs = []
        for name, phase, stage in STAGES:
            step, run = steps[(phase, stage)], os.path.join(tmp, name)
            end = None
            if name == "polish":
                import torch

                os.makedirs(run)
                shutil.copy(a.ka, os.path.join(run, "ckpt.pt"))
                end = torch.load(a.ka, map_location="cpu", weights_only=False)["step"] + step.stage.steps
            cmd = [
                "timeout",
                str(int(limit)),
                *module("train.nano.train", *train_argv(step, run, end), *extra),
            ]
            log = open(os.path.join(a.out, f"{name}.log"), "w")
            p = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
            procs.append((name, p, log))
            if not a.together:
                p.wait()
        for name, p, log in procs:
            p.wait()
            log.close()
    for name, _, _ in procs:
        print(f"{name}: {summary(os.path.join(a.out, name + '.log'))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
