"""Builds the next training step's batch in a second process while this one trains.

Why: the corpus generator and the packer are plain Python, about 40-60 ms of a ~290 ms joint
step (cProfile, session 31), and torch leaves a core idle in its single-threaded stretches.
A batch is a pure function of (step, stage, corpus counters) (train.py's `make_batch`), so
the worker computes exactly what the loop would have; a batch prefetched for a stage the loop
has since left (a promotion) is dropped and rebuilt here, so the stream never changes.
"""
from __future__ import annotations

import multiprocessing as mp
import pickle
import signal
from typing import Any, Callable

Make = Callable[[int, int, dict], tuple[Any, dict]]  # (step, stage, counters) -> (batch, counters after)


def _key(step: int, stage: int, counters: dict) -> tuple:
    return step, stage, tuple(sorted(counters.items()))


def _serve(make: Make, conn) -> None:
    # the trainer handles SIGINT / SIGTERM (finish the step, save); the worker just waits for "stop"
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    import torch
    torch.set_num_threads(1)
    while True:
        req = conn.recv()
        if req is None:
            return
        try:
            out = (req, make(*req), None)
        except Exception as e:  # noqa: BLE001  (sent back and raised in the trainer)
            out = (req, None, f"{type(e).__name__}: {e}")
        # plain pickle: tensors travel as bytes, not as torch's shared-memory handles (no file
        # descriptors to leak over a 30,000-step run)
        conn.send_bytes(pickle.dumps(out))


class Prefetcher:
    """`get(step, stage, counters)` returns `make(step, stage, counters)`, usually already built;
    then it starts building step + 1 with the counters that batch left. Use as a context manager
    (the worker stops on exit). Start it before torch runs parallel work: it forks."""

    def __init__(self, make: Make):
        self._make = make
        ctx = mp.get_context("fork")
        self._conn, child = ctx.Pipe()
        self._proc = ctx.Process(target=_serve, args=(make, child), daemon=True)
        self._proc.start()
        child.close()
        self._pending: tuple | None = None
        self.hits = self.misses = 0

    def get(self, step: int, stage: int, counters: dict):
        want = (step, stage, dict(counters))
        result = None
        if self._pending is not None:
            try:
                req, result, err = pickle.loads(self._conn.recv_bytes())
            except EOFError:
                raise RuntimeError("prefetch: the batch worker died") from None
            self._pending = None
            if err:
                raise RuntimeError(f"prefetch: the batch worker failed: {err}")
            if _key(*req) != _key(*want):
                result = None
        if result is None:
            self.misses += 1
            result = self._make(*want)
        else:
            self.hits += 1
        batch, after = result
        self._pending = (step + 1, stage, dict(after))
        self._conn.send(self._pending)
        return batch, after

    def close(self) -> None:
        if self._proc.is_alive():
            try:
                if self._pending is not None:
                    self._conn.recv_bytes()  # let the worker finish its batch, so "stop" is read
                self._conn.send(None)
            except (EOFError, BrokenPipeError, OSError):
                pass
            self._proc.join(timeout=5)
            if self._proc.is_alive():
                self._proc.terminate()
                self._proc.join()
        self._conn.close()

    def __enter__(self) -> "Prefetcher":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
