"""Runs the embedded model's recipe (train/nano/recipe.py): every phase, or the ones named.

    python3 -m train.nano.run_recipe --dry-run               # the plan: phases, stages, commands
    python3 -m train.nano.run_recipe                         # all of it, from scratch or where it stopped
    python3 -m train.nano.run_recipe --phase polish          # one phase (its inputs must exist)

Runs live under --root (default train/runs/meadow-nano, git-ignored), one folder per run:
scenes/, words-narrow/, words/, joint/, polish/. Resumable: rerunning the same command continues
where it stopped; a stage whose end its run's checkpoint has reached is skipped (a fine-tune
stage runs only while its run is between its start and its end, so a finished phase is never
trained again). A phase's relative steps count from the step it started at, kept in
RUN/PHASE.start. The two branches (scenes, words) run at the same time, one per core
(--jobs 1: one after the other; their output then goes to ROOT/PHASE.log). Every process runs
with OpenBLAS pinned (train/nano/blas.py) from the repository root.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import threading
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass

from . import config
from . import recipe as R
from .blas import pinned_env
from train.common.heldout import filter as heldout_filter

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class RecipeError(Exception):
    """A stage cannot run (a missing input, a checkpoint in the wrong state): one line, exit 2."""


@dataclass
class Step:
    """One stage of the plan: where it runs and, for a Train stage, its end step and command."""

    phase: R.Phase
    stage: object
    run: str  # the run folder's name
    start: int | None = None  # the phase's start (the plan's: a run from scratch)
    end: int | None = None  # a Train stage's end step (None: until train.py stops by itself)
    rel: int | None = None  # end - start, for a kept checkpoint's name


def plan(recipe: R.Recipe) -> list[Step]:
    """Every stage in order, with the steps a run from scratch reaches (a branch that stops by
    itself, --stop-at-end, has no known step until it does)."""
    at: dict[str, int | None] = {}  # a run folder's step after the stages so far
    out = []
    for p in recipe.phases:
        start = prev = None
        for s in p.stages:
            run = getattr(s, "run", None) or p.run
            step = Step(p, s, run)
            if isinstance(s, R.Train):
                if s.steps is not None:
                    if start is None:
                        start = prev = at.get(run, 0)
                    if prev is None:
                        raise RecipeError(
                            f"{p.name}.{s.name}: relative steps after a stage with no known end"
                        )
                    step.end = prev + s.steps
                    step.start, step.rel = start, step.end - start
                else:
                    step.end = s.until
                prev = at[run] = step.end
            elif isinstance(s, R.FreshOptimizer):
                start = prev = at.get(run, 0)
            elif isinstance(s, (R.Grow, R.Spread)):
                at[run] = at.get(s.source, 0)
            elif isinstance(s, R.Stitch):
                at[run] = at.get(s.b, 0)
            out.append(step)
    return out


def train_argv(step: Step, run_dir: str, end: int | None = None) -> list[str]:
    """train.py's command line for a Train step ending at `end` (default: the plan's)."""
    s = step.stage
    end = step.end if end is None else end
    flags = dict(s.flags)
    if end is not None:
        flags["steps"] = end
        if s.anneal:
            flags["anneal"] = (end - s.anneal, end)
    return ["--run", run_dir, *config.argv(flags)]


def module(name: str, *args: str) -> list[str]:
    return [sys.executable, "-m", name, *args]


def describe(step: Step, root: str, out: str) -> str:
    """The stage as one line of the dry run: what runs (a command where there is one)."""
    s, d = step.stage, os.path.join(root, step.run)
    if isinstance(s, R.Train):
        cmd = " ".join(shlex.quote(x) for x in module("train.nano.train", *train_argv(step, d))[1:])
        until = (
            f"+{s.steps:,} to step {step.end:,}"
            if s.steps is not None
            else f"to step {s.until:,}"
            if s.until is not None
            else "until it stops (--stop-at-end)"
        )
        keep = "; kept for the soup" if s.keep else ""
        return f"train {until}{keep}: python3 {cmd}"
    if isinstance(s, R.CheckHeldOut):
        return f"python3 -m train.nano.check_contamination --examples {s.examples}"
    if isinstance(s, R.Grow):
        return (
            f"python3 -m train.nano.grow --ckpt {root}/{s.source}/ckpt.pt --out {d}/ckpt.pt --widen {s.widen}"
        )
    if isinstance(s, R.Stitch):
        return f"python3 -m train.nano.stitch --a {root}/{s.a}/ckpt.pt --b {root}/{s.b}/ckpt.pt --out {d}/ckpt.pt"
    if isinstance(s, R.Spread):
        return f"python3 -m train.nano.spread_unread --ckpt {root}/{s.source}/ckpt.pt --out {d}/ckpt.pt --per-stage {s.per_stage}"
    if isinstance(s, R.Soup):
        return f"python3 -m train.nano.average --out {d}/ckpt.pt (the kept checkpoints {d}/keep-STEP.pt, last first)"
    if isinstance(s, R.FreshOptimizer):
        return f"{d}/ckpt.pt without its optimizer state"
    if isinstance(s, R.Export):
        return f"python3 -m train.nano.export_gguf --ckpt {d}/ckpt.pt --out {out}"
    if isinstance(s, R.Measure):
        return f"python3 -m train.nano.measure {d} --gguf {out}"
    raise TypeError(f"unknown stage {s!r}")


def dry_run(recipe: R.Recipe, steps: list[Step], root: str, out: str, file=None) -> None:
    file = file or sys.stdout
    print(
        f"recipe: {len(recipe.phases)} phases under {root} (steps as a run from scratch reaches them)",
        file=file,
    )
    for p in recipe.phases:
        print(
            f"\nphase {p.name} (run {p.run}/; after: {', '.join(p.after) or 'nothing'}): {p.doc}", file=file
        )
        for step in (x for x in steps if x.phase is p):
            print(f"  {step.stage.name}: {describe(step, root, out)}", file=file)
            if getattr(step.stage, "doc", ""):
                print(f"      ({step.stage.doc})", file=file)


class Runner:
    """Runs phases' stages on real checkpoints (train.py, grow, stitch, ... as processes)."""

    def __init__(self, recipe: R.Recipe, root: str, out: str, cli: str, build: str, logs: bool):
        self.recipe, self.root, self.out, self.cli, self.build = recipe, root, out, cli, build
        self.steps = plan(recipe)
        self.logs = logs  # phases' output to ROOT/PHASE.log (when two run at once)
        self.env = pinned_env()
        self.env[heldout_filter.FILES_ENV] = ",".join(R.HELDOUT_FILES)
        self.lock = threading.Lock()

    def dir(self, run: str) -> str:
        return os.path.join(self.root, run)

    def ckpt(self, run: str) -> str:
        return os.path.join(self.dir(run), "ckpt.pt")

    def load(self, run: str) -> dict:
        import torch

        return torch.load(self.ckpt(run), map_location="cpu", weights_only=False)

    def now(self, run: str) -> int:
        return self.load(run)["step"] if os.path.exists(self.ckpt(run)) else 0

    def need(self, run: str, phase: R.Phase) -> None:
        if not os.path.exists(self.ckpt(run)):
            raise RecipeError(f"phase {phase.name} needs {self.ckpt(run)}: run the phase that makes it first")

    def say(self, phase: R.Phase, text: str, log) -> None:
        with self.lock:
            print(f"[{phase.name}] {text}", flush=True)
        if log is not sys.stdout:
            print(f"[{phase.name}] {text}", file=log, flush=True)

    def call(self, phase: R.Phase, cmd: list[str], log) -> None:
        self.say(phase, " ".join(shlex.quote(x) for x in ["python3", *cmd[1:]]), log)
        out = None if log is sys.stdout else log  # a phase's own log, else this process's output
        r = subprocess.run(cmd, cwd=ROOT, env=self.env, stdin=subprocess.DEVNULL, stdout=out, stderr=out)
        if r.returncode:
            raise RecipeError(f"phase {phase.name}: exit {r.returncode} from {' '.join(cmd[1:4])} ...")

    def start(self, phase: R.Phase, run: str) -> int:
        """The step the phase started at on `run` (recorded the first time it is asked)."""
        path = os.path.join(self.dir(run), f"{phase.name}.start")
        if not os.path.exists(path):
            os.makedirs(self.dir(run), exist_ok=True)
            with open(path, "w") as f:
                f.write(f"{self.now(run)}\n")
        with open(path) as f:
            return int(f.read())

    def run_phase(self, phase: R.Phase) -> None:
        log = open(os.path.join(self.root, f"{phase.name}.log"), "a") if self.logs else sys.stdout
        try:
            self._run_phase(phase, log)
        finally:
            if log is not sys.stdout:
                log.close()

    def _run_phase(self, phase: R.Phase, log) -> None:
        marker = os.path.join(self.dir(phase.run), f"{phase.name}.soup")
        if any(isinstance(s, R.Soup) for s in phase.stages) and os.path.exists(marker):
            with open(marker) as f:
                self.say(phase, f"done (the mean of {f.read().strip()})", log)
            return
        kept: list[tuple[int, str]] = []
        prev = None  # the previous Train stage's end
        for step in (x for x in self.steps if x.phase is phase):
            s, run, d = step.stage, step.run, self.dir(step.run)
            os.makedirs(d, exist_ok=True)
            if isinstance(s, R.CheckHeldOut):
                self.call(phase, module("train.nano.check_contamination", "--examples", str(s.examples)), log)
            elif isinstance(s, (R.Grow, R.Stitch, R.Spread)):
                self._new_start(phase, s, run, log)
            elif isinstance(s, R.FreshOptimizer):
                self._fresh_optimizer(phase, s, run, log)
                prev = self.start(phase, run)
            elif isinstance(s, R.Train):
                prev = self._train(phase, step, prev, kept, log)
            elif isinstance(s, R.Soup):
                self._soup(phase, run, kept, log)
            elif isinstance(s, R.Export):
                self.need(run, phase)
                self.call(
                    phase, module("train.nano.export_gguf", "--ckpt", self.ckpt(run), "--out", self.out), log
                )
            elif isinstance(s, R.Measure):
                measure = (
                    "train.nano.measure",
                    d,
                    "--gguf",
                    self.out,
                    "--cli",
                    self.cli,
                    "--build",
                    self.build,
                )
                self.call(phase, module(*measure), log)

    def _new_start(self, phase: R.Phase, s, run: str, log) -> None:
        """A Grow, Stitch or Spread stage: the run's checkpoint made from its sources' (unless it
        exists); a Spread's must be a spread one."""
        if not os.path.exists(self.ckpt(run)):
            if isinstance(s, R.Grow):
                self.need(s.source, phase)
                args = ["train.nano.grow", "--ckpt", self.ckpt(s.source), "--out", self.ckpt(run)]
                args += ["--widen", str(s.widen)]
            elif isinstance(s, R.Stitch):
                self.need(s.a, phase)
                self.need(s.b, phase)
                args = [
                    "train.nano.stitch",
                    "--a",
                    self.ckpt(s.a),
                    "--b",
                    self.ckpt(s.b),
                    "--out",
                    self.ckpt(run),
                ]
            else:
                self.need(s.source, phase)
                args = ["train.nano.spread_unread", "--ckpt", self.ckpt(s.source), "--out", self.ckpt(run)]
                args += ["--per-stage", str(s.per_stage)]
            self.call(phase, module(*args), log)
        if isinstance(s, R.Spread) and not self.load(run).get("spread"):
            raise RecipeError(
                f"phase {phase.name}: {self.ckpt(run)} is not a spread checkpoint "
                "(train/nano/spread_unread.py makes one)"
            )

    def _fresh_optimizer(self, phase: R.Phase, s, run: str, log) -> None:
        """The run's checkpoint without its optimizer state, once (before the phase starts)."""
        self.need(run, phase)
        if not os.path.exists(os.path.join(self.dir(run), f"{phase.name}.start")):
            import torch

            st = self.load(run)
            st["opt"] = None
            torch.save(st, self.ckpt(run))
            self.say(phase, f"{s.name}: {self.ckpt(run)} without its optimizer state", log)

    def _soup(self, phase: R.Phase, run: str, kept: list, log) -> None:
        """The mean of the phase's kept checkpoints (the last first: the mean takes its step and
        optimizer), and the marker that says the phase is done."""
        if len(kept) < 2:
            raise RecipeError(f"phase {phase.name}: the soup needs two kept checkpoints, has {len(kept)}")
        order = sorted(kept, reverse=True)
        self.call(phase, module("train.nano.average", "--out", self.ckpt(run), *(p for _, p in order)), log)
        with open(os.path.join(self.dir(run), f"{phase.name}.soup"), "w") as f:
            f.write(f"{phase.name} steps {' '.join(str(r) for r, _ in sorted(kept))}\n")

    def _train(self, phase: R.Phase, step: Step, prev: int | None, kept: list, log) -> int | None:
        s, run = step.stage, step.run
        if s.steps is not None:
            if prev is None:
                prev = self.start(phase, run)
            end = prev + s.steps
            now = self.now(run)
            if now < end and now >= prev:
                self.call(phase, module("train.nano.train", *train_argv(step, self.dir(run), end)), log)
            if s.keep:
                rel = end - self.start(phase, run)
                keep = os.path.join(self.dir(run), f"keep-{rel}.pt")
                if not os.path.exists(keep):
                    if self.now(run) != end:
                        raise RecipeError(
                            f"phase {phase.name}: {self.ckpt(run)} is not at step {end} to keep"
                        )
                    shutil.copyfile(self.ckpt(run), keep)
                kept.append((rel, keep))
            return end
        if s.until is not None:
            if self.now(run) < s.until:
                self.call(phase, module("train.nano.train", *train_argv(step, self.dir(run), s.until)), log)
            return s.until
        # until train.py stops by itself (--stop-at-end): done once its checkpoint says so
        if not (os.path.exists(self.ckpt(run)) and self.load(run).get("at_end")):
            self.call(phase, module("train.nano.train", *train_argv(step, self.dir(run))), log)
            if not self.load(run).get("at_end"):
                raise RecipeError(
                    f"phase {phase.name}: {s.name} stopped before its last stage reached --promote"
                )
        return None

    def run(self, names: list[str], jobs: int) -> None:
        """The named phases in recipe order; up to `jobs` at once when none reads another's runs."""
        todo = [p for p in self.recipe.phases if p.name in names]
        done: set[str] = set()
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            running: dict = {}
            while todo or running:
                ready = [p for p in todo if all(d in done or d not in names for d in p.after)]
                if not ready and not running:
                    raise RecipeError(f"phases {[p.name for p in todo]} wait on phases that did not finish")
                for p in ready[: max(0, jobs - len(running))]:
                    todo.remove(p)
                    running[pool.submit(self.run_phase, p)] = p
                finished, _ = wait(list(running), return_when=FIRST_COMPLETED)
                for f in finished:
                    p = running.pop(f)
                    if f.exception():
                        for other in running:  # let the other branch finish its own work first
                            other.result()
                        raise f.exception()
                    done.add(p.name)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", default="train/runs/meadow-nano", help="the runs' folder (default %(default)s)")
    ap.add_argument("--phase", action="append", help="run this phase only (repeatable); default: every phase")
    ap.add_argument("--dry-run", action="store_true", help="print the plan and run nothing")
    ap.add_argument(
        "--out", default="models/meadow-nano.gguf", help="the exported model (default %(default)s)"
    )
    ap.add_argument("--cli", default="build/meadow-mind", help="the C++ CLI the measurements run")
    ap.add_argument("--build", default="build", help="the C++ build folder (the relabelling tests)")
    ap.add_argument("--jobs", type=int, default=2, help="phases at once where the recipe allows (default 2)")
    a = ap.parse_args(argv)
    recipe = R.Recipe()
    names = a.phase or [p.name for p in recipe.phases]
    unknown = [n for n in names if n not in recipe.by_name]
    if unknown:
        ap.error(f"--phase {unknown[0]}: the phases are {', '.join(recipe.by_name)}")
    if a.jobs < 1:
        ap.error("--jobs: at least 1")
    steps = plan(recipe)
    if a.dry_run:
        dry_run(recipe, steps, a.root, a.out)
        return 0
    root, out, cli, build = (os.path.abspath(x) for x in (a.root, a.out, a.cli, a.build))
    os.makedirs(root, exist_ok=True)
    runner = Runner(recipe, root, out, cli, build, logs=a.jobs > 1 and len(names) > 1)
    try:
        runner.run(names, a.jobs)
    except RecipeError as e:
        print(f"run_recipe: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
