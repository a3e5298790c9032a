#!/usr/bin/env python3
"""Checks any llama / qwen2 GGUF in our runtime against Hugging Face transformers loading the
same file: token ids of the tokenizer corpus (transformers' GGUF tokenizer), and the logits of
a few prompts at their last positions (max |diff| / max |logit|, top-1). A manual script for
models too big to fetch on every CI run (test_reference covers SmolLM2 on every run).

Usage: .venv/bin/python tools/reference_check.py MODEL.gguf [--cli build/meadow-mind]
Exit 0 when every check holds, 1 when one fails, 2 on bad usage.
"""
import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("TQDM_DISABLE", "1")
ROOT = Path(__file__).resolve().parent.parent

PROMPTS = [
    "<|im_start|>user\nRule: If the pole is falling left, choose A. If the pole is falling right,"
    " choose B.\nOptions:\nA) push the cart left\nB) push the cart right\nSituation: the pole is"
    " falling right<|im_end|>\n<|im_start|>assistant\n",
    "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n\nprint(fib(30))",
    "The keeper climbed the lighthouse stairs, wiped the lens and wrote the weather in the log.",
]


def cli(args, binary):
    r = subprocess.run([binary] + args, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"reference_check: {' '.join(args[:2])}: {r.stderr.strip()}")
    return json.loads(r.stdout)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model")
    ap.add_argument("--cli", default=str(ROOT / "build" / "meadow-mind"))
    a = ap.parse_args(argv)
    # A private copy of the binary: a rebuild during the run must not swap it underneath.
    import shutil
    import tempfile

    tmp = tempfile.mkdtemp(prefix="meadow-refcheck-")
    a.cli = shutil.copy2(a.cli, os.path.join(tmp, "meadow-mind"))
    import numpy as np
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    d, name = os.path.split(os.path.abspath(a.model))
    tok = AutoTokenizer.from_pretrained(d, gguf_file=name)
    corpus = json.loads((ROOT / "tests" / "tokenizer" / "corpus.json").read_text())
    mism = 0
    for s in corpus:
        if not s:
            continue
        ours = cli(["tokenize", "--model", a.model, "--json", "--", s], a.cli)["ids"]
        ref = tok(s, add_special_tokens=False)["input_ids"]
        if ours != ref:
            mism += 1
            if mism <= 5:
                print(f"tokens differ on {json.dumps(s)[:60]}: ours {ours[:12]} ref {ref[:12]}")
    print(f"tokenizer: {len(corpus) - 1 - mism}/{len(corpus) - 1} corpus strings identical")

    torch.set_num_threads(2)
    model = AutoModelForCausalLM.from_pretrained(d, gguf_file=name, torch_dtype=torch.float32)
    from gguf import GGUFReader

    if not any(t.name == "output.weight" for t in GGUFReader(a.model).tensors):
        model.lm_head.weight = model.model.embed_tokens.weight
    ok = mism == 0
    for p in PROMPTS:
        ids = cli(["tokenize", "--model", a.model, "--json", "--", p], a.cli)["ids"]
        rows = list(range(max(0, len(ids) - 3), len(ids)))
        ours = cli(["logits", "--model", a.model, "--ids", ",".join(map(str, ids)),
                    "--positions", ",".join(map(str, rows)), "--json"], a.cli)["logits"]
        with torch.no_grad():
            ref = model(torch.tensor([ids])).logits[0, rows].float().numpy()
        ours = np.array(ours, dtype=np.float32)
        ratio = float(np.abs(ours - ref).max() / np.abs(ref).max())
        top = int((ours.argmax(1) != ref.argmax(1)).sum())
        print(f"logits: {len(ids)} tokens, rows {rows[0]}..{rows[-1]}: max |diff| / max |logit|"
              f" {ratio:.2e}, top-1 mismatches {top}")
        ok = ok and ratio <= 1e-3 and top == 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
