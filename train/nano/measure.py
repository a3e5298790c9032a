"""Measures an exported model and writes its card: the evaluation table, episodes of every
built-in task on its fixed seeds, the relabelling tests, the latency bench, then (by
train/nano/model_card.py) models/meadow-nano.measured.json (all of it as one JSON), and from it
models/MODEL_CARD.md (the card), docs/meadow-nano-record.md (the full record) and
models/meadow-nano.targets.json. The recipe's last stage.

    python3 -m train.nano.measure RUN_DIR [--gguf models/meadow-nano.gguf] [--lineage TEXT]

Needs the C++ build (--cli, --build). Writes RUN_DIR/eval.json, plays.txt, relabelling.txt and
bench.json beside the checkpoint it measures.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

from . import model_card
from .blas import pinned_env

TASKS = ("cartpole", "mountaincar", "frozenlake", "lunarlander", "maze")


def play_verdict(cli: str, task: str, gguf: str, episodes: int) -> str:
    """One episode prints only its "seed N:" line; several end with a "verdict:" line."""
    r = subprocess.run(
        [cli, "play", task, "--model", gguf, "--episodes", str(episodes)], capture_output=True, text=True
    )
    lines = [ln for ln in (r.stdout + r.stderr).splitlines() if ln.startswith(("verdict:", "seed 0:"))]
    return lines[-1].removeprefix("verdict: ").removeprefix("seed 0: ") if lines else ""


def main(argv=None) -> int:
    a = _args(argv)
    for path, what in (
        (os.path.join(a.run, "ckpt.pt"), "checkpoint"),
        (a.gguf, "GGUF"),
        (a.cli, "meadow-mind CLI"),
    ):
        if not os.path.exists(path):
            print(f"measure: no {what} at {path}", file=sys.stderr)
            return 2
    env = pinned_env()  # the float32 eval rows retrace
    out = {k: os.path.join(a.run, k) for k in ("eval.json", "plays.txt", "relabelling.txt", "bench.json")}
    _eval_table(a, env, out["eval.json"])
    _plays(a, out["plays.txt"])
    _relabelling(a, env, out["relabelling.txt"])
    _bench(a, out["bench.json"])
    return model_card.main(
        [
            "--ckpt",
            os.path.join(a.run, "ckpt.pt"),
            "--gguf",
            a.gguf,
            "--eval",
            out["eval.json"],
            "--bench",
            out["bench.json"],
            "--plays",
            out["plays.txt"],
            "--relabelling",
            out["relabelling.txt"],
            "--lineage",
            a.lineage,
        ]
    )


def _args(argv) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", help="the run folder: its ckpt.pt is the exported model's checkpoint")
    ap.add_argument("--gguf", default="models/meadow-nano.gguf")
    ap.add_argument("--lineage", default="", help="free text for the card: how this checkpoint was trained")
    ap.add_argument("--cli", default="build/meadow-mind")
    ap.add_argument(
        "--build", default="build", help="the build folder (its tests/test_mind runs the relabelling tests)"
    )
    # the synthetic rows' stream: stage 13 (the full scene + word-table mix) for every model, so
    # cards stay comparable whatever stage a recipe ends on
    ap.add_argument("--stage", type=int, default=13)
    # 600 tables (about 4,800 decisions) a synthetic row: its standard error (tables as the unit)
    # is 0.003-0.004, at 200 tables 0.005-0.007, larger than the gaps to the bars
    ap.add_argument("--tables", type=int, default=600)
    return ap.parse_args(argv)


def _eval_table(a: argparse.Namespace, env: dict, path: str) -> None:
    """The evaluation table (train/nano/eval_table.py) of the checkpoint and its GGUF, to `path`."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "train.nano.eval_table",
            "--ckpt",
            os.path.join(a.run, "ckpt.pt"),
            "--gguf",
            a.gguf,
            "--cli",
            a.cli,
            "--stage",
            str(a.stage),
            "--tables",
            str(a.tables),
            "--threads",
            "2",
            "--json",
            path,
        ],
        env=env,
        check=True,
    )


def _plays(a: argparse.Namespace, path: str) -> None:
    """Each built-in task's verdict over its fixed seeds, printed and written to `path`."""
    seeds = {
        t["name"]: len(t["seeds"])
        for t in json.loads(
            subprocess.run([a.cli, "list", "--json"], capture_output=True, text=True, check=True).stdout
        )
    }
    with open(path, "w") as f:
        for t in TASKS:
            line = f"{t}: {play_verdict(a.cli, t, a.gguf, seeds[t])}"
            print(line, flush=True)
            f.write(line + "\n")


def _relabelling(a: argparse.Namespace, env: dict, path: str) -> None:
    """The relabelling tests of tests/mind/trained_model_test.cpp, on this model, every table set."""
    with open(path, "w") as f:
        subprocess.run(
            [os.path.join(a.build, "tests", "test_mind"), "--gtest_filter=TrainedModel.*"],
            env=dict(env, MEADOW_TEST_ALL_TARGETS="1", MEADOW_TEST_TRAINED_MODEL=a.gguf),
            stdout=f,
            stderr=subprocess.STDOUT,
        )


def _bench(a: argparse.Namespace, path: str) -> None:
    """The CLI's latency bench of the GGUF, as JSON to `path`."""
    with open(path, "w") as f:
        subprocess.run(
            [a.cli, "bench", "--model", a.gguf, "--threads", "2", "--decisions", "200"], stdout=f, check=True
        )


if __name__ == "__main__":
    sys.exit(main())
