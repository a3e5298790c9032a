"""Score a meadow-small checkpoint on exam sets, in PyTorch, exactly as the runtime reads.

    .venv-train/bin/python -m train.small.evaluate --ckpt RUN/ckpt.pt SET.jsonl [SET.jsonl ...]

The prompt ids are the runtime's (train/small/prompt.py; checked against `meadow-mind decide`),
the answer is the softmax over the options' letter tokens ("A" and " A" summed). Items of one
rule are packed into one row as in training. For a quick look during training; the numbers a
release states come from `meadow-mind reading` on the exported adapter.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys

import torch

from train.small import train as T
from train.common.compose import Item
from train.small.prompt import Prompter


def load_set(path: str) -> list[list[Item]]:
    """Items grouped by (rule, options), in file order."""
    groups: dict = collections.OrderedDict()
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            d = json.loads(line)
            it = Item(
                d["rule"],
                [tuple(o) for o in d["options"]],
                d["state"],
                d["answer"],
                d.get("forms", []),
                d.get("domain", ""),
            )
            groups.setdefault((it.rule, tuple(it.options)), []).append(it)
    return list(groups.values())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sets", nargs="+")
    ap.add_argument("--ckpt", default="", help="a train.py checkpoint (none: the base model)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--forms", action="store_true", help="per-form accuracy too")
    a = ap.parse_args(argv)
    torch.set_num_threads(a.threads)
    for path in [p for p in [a.ckpt] if p] + a.sets:
        if not os.path.isfile(path):
            print(f"evaluate: no such file: {path}", file=sys.stderr)
            return 2
    cfg = T.Config()
    model = T.load_model(cfg)
    if a.ckpt:
        state = torch.load(a.ckpt)
        saved = json.load(open(a.ckpt.rsplit("/", 1)[0] + "/config.json"))
        cfg = T.Config(**{k: v for k, v in saved.items() if k in T.Config.__dataclass_fields__})
        model = T.with_lora(model, cfg)
        missing = model.load_state_dict(state["model"], strict=False)
        if missing.unexpected_keys:
            print(f"evaluate: unexpected keys in {a.ckpt}", file=sys.stderr)
            return 2
        print(f"checkpoint {a.ckpt}: step {state['step']}")
    prompter = Prompter(cfg.base)
    for path in a.sets:
        res = T.score(model, prompter, load_set(path))
        right = sum(got == it.answer for it, got in res)
        print(f"{path}: {right / len(res):.3f} ({right}/{len(res)})")
        if a.forms:
            tally = collections.defaultdict(lambda: [0, 0])
            for it, got in res:
                for f in it.forms:
                    tally[f][0] += got == it.answer
                    tally[f][1] += 1
            for f, (r, n) in sorted(tally.items(), key=lambda kv: kv[1][0] / kv[1][1]):
                print(f"  {f:22s} {r / n:.3f} ({r}/{n})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
