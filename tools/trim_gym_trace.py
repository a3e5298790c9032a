"""Trims a recorded Gymnasium trace (tests/data/gym-traces) to the fewest steps of whole episodes
that still hold every transition the full recording holds.

    python3 tools/trim_gym_trace.py FULL.json OUT.json

A transition is (observation, action) -> (next observation, reward, terminated, truncated,
info). The trace must have discrete observations and actions, and each (observation, action) of
the recording must have one outcome (a deterministic env whose state is its observation, such as
CliffWalking-v1 without is_slippery); otherwise the kept episodes would not check what the full
recording checks, and the tool refuses (exit 2). Episodes are kept whole, so each still starts at
its seed's reset and ends at its first terminated or truncated step. Among the sets of episodes
that hold every transition it keeps the one with the fewest steps (then fewer episodes, then the
lowest seeds), found exactly over all subsets. The output is the input's object with only those
episodes and a "trimmed" record of what was dropped, written as the recordings are (compact JSON,
one line), so the same input gives the same bytes. tests/data/gym-traces/README.md says which
files were trimmed and from which commit the full recording comes.
"""
from __future__ import annotations

import argparse
import itertools
import json
import sys


def transitions(ep: dict) -> dict:
    """(obs, action) -> outcome for every step of one episode."""
    out, obs = {}, ep["reset_obs"]
    for st in ep["steps"]:
        if not isinstance(obs, int) or not isinstance(st["action"], int):
            raise ValueError(f"seed {ep['seed']}: observations and actions must be discrete (ints)")
        outcome = json.dumps([st["obs"], st["reward"], st["terminated"], st["truncated"], st["info"]],
                             sort_keys=True)
        if out.setdefault((obs, st["action"]), outcome) != outcome:
            raise ValueError(f"seed {ep['seed']}: ({obs}, {st['action']}) has two outcomes: not deterministic")
        obs = st["obs"]
    return out


def choose(episodes: list[dict]) -> list[int]:
    """Indices of the episodes to keep (see the module's docstring)."""
    if len(episodes) > 20:
        raise ValueError(f"{len(episodes)} episodes: the exact search is for at most 20")
    per = [transitions(ep) for ep in episodes]
    everything: dict = {}
    for t in per:
        for k, v in t.items():
            if everything.setdefault(k, v) != v:
                raise ValueError(f"{k} has two outcomes across episodes: not deterministic")
    best = None
    for n in range(1, len(episodes) + 1):
        for idx in itertools.combinations(range(len(episodes)), n):
            if len(set().union(*(per[i].keys() for i in idx))) != len(everything):
                continue
            key = (sum(len(episodes[i]["steps"]) for i in idx), n, [episodes[i]["seed"] for i in idx])
            if best is None or key < best[0]:
                best = (key, list(idx))
    return best[1]


def trim(trace: dict) -> dict:
    if "trimmed" in trace:
        raise ValueError("already trimmed: give the full recording")
    eps = trace["episodes"]
    keep = choose(eps)
    out = {k: v for k, v in trace.items() if k != "episodes"}
    out["trimmed"] = {
        "by": "tools/trim_gym_trace.py",
        "rule": "the fewest steps of whole episodes holding every (obs, action) transition of the recording",
        "recorded_seeds": [ep["seed"] for ep in eps],
        "recorded_steps": sum(len(ep["steps"]) for ep in eps),
        "transitions": len(set().union(*(transitions(ep).keys() for ep in eps))),
    }
    out["episodes"] = [eps[i] for i in keep]
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("full", help="the full recording (JSON)")
    ap.add_argument("out", help="where to write the trimmed trace")
    a = ap.parse_args(argv)
    try:
        with open(a.full) as f:
            trace = json.load(f)
        out = trim(trace)
    except (OSError, ValueError, KeyError) as e:
        print(f"trim_gym_trace: {e}", file=sys.stderr)
        return 2
    with open(a.out, "w") as f:
        f.write(json.dumps(out, separators=(",", ":")) + "\n")
    kept = out["episodes"]
    print(f"trim_gym_trace: kept seeds {[ep['seed'] for ep in kept]} "
          f"({sum(len(ep['steps']) for ep in kept)} of {out['trimmed']['recorded_steps']} steps, "
          f"all {out['trimmed']['transitions']} transitions)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
