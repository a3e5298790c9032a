"""A run's batch stream: the stage and example of every table of a step, and the packed batch.

Deterministic: step n's tables come from random.Random(f"{seed}:step:{n}") and the per-stage
example counters, so a resumed run trains on the batches an unbroken one would. `Ahead` packs the
batches up to the next eval in worker processes, for a device whose step is faster than the
corpus (a GPU: ~75-110 ms a step measured there, mostly the corpus inline); a stage
can change only at an eval, so every batch it packs is the one train.py would have packed inline.
"""

from __future__ import annotations

import multiprocessing
import random
import signal
from collections import deque

import numpy as np
import torch

from .corpus.curriculum import STAGES, name_of, order
from .corpus.generate import example


def stage_list(value: str | None) -> list[str] | None:
    """A comma list of stages (--path, --replay) as names (numbers: the stages' seeds)."""
    return None if value is None else [name_of(x) for x in value.split(",")]


def path_of(a) -> list[str] | None:
    return stage_list(a.path)


def path_replay(a, stage: str) -> list[str] | None:
    """--replay as given, else with --path the path's stages before this one."""
    path = path_of(a)
    if a.replay or path is None or stage not in path or path.index(stage) == 0:
        return stage_list(a.replay or None)
    return path[: path.index(stage)]


def replay_range(stage: str, replay_from: str, replay_to: str | None = None) -> list[str]:
    """The stages replay_from .. replay_to (default: the one before `stage`), all before
    `stage`, in curriculum order."""
    lo = min(order(replay_from), order(stage))
    hi = order(stage) if replay_to is None else min(order(replay_to) + 1, order(stage))
    return list(STAGES)[lo:hi]


def pick_stage(
    rng: random.Random, stage: str, mix_prev: float, replay_from: str, replay_to=None, replay=None
) -> str:
    """The stage of one example of a batch: the current one, or with probability mix_prev a
    replayed one (the listed ones, else replay_range's).
    The draws are the recipe's (one rng.random(), then one rng.choice over the pool in the
    curriculum's order, as when the stages were numbered), so its stream stays reproducible."""
    if replay:
        pool = [x for x in replay if x != stage]
        return stage if not pool or rng.random() >= mix_prev else rng.choice(pool)
    pool = replay_range(stage, replay_from, replay_to)
    return stage if not pool or rng.random() >= mix_prev else rng.choice(pool)


def picks(a, rng: random.Random, stage: str, counters: dict) -> list[tuple[str, int]]:
    """(stage, example index) of each table of a step, drawn from the step's rng; advances counters."""
    replay = path_replay(a, stage)
    out = []
    for _ in range(a.batch):
        s = pick_stage(rng, stage, a.mix_prev, a.replay_from, a.replay_to, replay)
        idx = counters.get(s, 0)
        counters[s] = idx + 1
        out.append((s, idx))
    return out


def step_batch(a, packer, step: int, stage: str, counters: dict) -> dict:
    """The packed batch of step `step` at stage `stage`; advances counters."""
    rng = random.Random(f"{a.seed}:step:{step}")
    chosen = picks(a, rng, stage, counters)
    return packer.batch([example(a.seed, s, i) for s, i in chosen], rng)


# one worker process's run arguments and packer, set once by the pool's initializer
_worker: dict = {}


def _init_worker(a, packer) -> None:
    # forked from train.py, whose SIGTERM handler only asks the loop to stop: a worker must die on
    # the pool's terminate() (a worker blocked on a full result pipe hung the run otherwise), and
    # leave Ctrl-C to the trainer, which then ends the pool
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    torch.set_num_threads(1)
    _worker.update(a=a, packer=packer)


def _worker_batch(job) -> dict:
    step, stage, counters = job
    b = step_batch(_worker["a"], _worker["packer"], step, stage, counters)
    return {k: v.numpy() if torch.is_tensor(v) else v for k, v in b.items()}  # sent by value, no shared fds


class Ahead:
    """Packs the steps up to the next eval in `workers` processes, handed out in step order.
    A context manager: the pool ends with it."""

    def __init__(self, a, packer, workers: int):
        self.a = a
        # fork: the workers inherit the loaded tokenizer and word lists; they never touch a GPU
        self.pool = multiprocessing.get_context("fork").Pool(workers, _init_worker, (a, packer))
        self.next_step, self.results, self.after = -1, None, deque()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.pool.terminate()
        self.pool.join()

    def batch(self, step: int, stage: str, counters: dict) -> tuple[dict, dict]:
        """-> (step's batch, the counters after it). A new window opens when this step is not the
        next one packed (the first step, or a resumed run) or the last window is used up."""
        if step != self.next_step or not self.after:
            every = self.a.eval_every
            end = min(self.a.steps, (step // every + 1) * every)  # the stage holds until that eval
            jobs, c = [], dict(counters)
            self.after.clear()
            for n in range(step, end):
                jobs.append((n, stage, dict(c)))
                picks(self.a, random.Random(f"{self.a.seed}:step:{n}"), stage, c)
                self.after.append(dict(c))
            self.results = self.pool.imap(_worker_batch, jobs)
        self.next_step = step + 1
        b = next(self.results)
        return {
            k: torch.from_numpy(v) if isinstance(v, np.ndarray) else v for k, v in b.items()
        }, self.after.popleft()
