"""The corpus streams and the recipe's batch streams, pinned by hash (issue 46, item 4).

A refactor of train/ must change no stream the shipped model was trained on: every stage's
examples (training seed and eval seed) and, for each train.py call of the recipe
(train/nano/recipe.py, as train/nano/run_recipe.py makes them), its parsed configuration and the packed
batches it would train on at each of its stages. The digests were taken when the recipe was
still five shell scripts (train/make_model.sh and the scripts it ran, at the commit that added
this file): the recipe's calls parse to the same configurations and train on the same batches.
Streams that change on purpose (a new stage, a new knob at its non-zero value) add a line here;
a line that changes is a changed stream. Stages the recipe never used were removed from the
curriculum after these were taken (their lines went with them; every other line is as it was).
The configuration digests (the first of each call's pair) were taken again when train/ moved to
one folder per model (issue 61): the tokenizer is named by its file, not its path; and again
when the TrainConfig flags no stage set were removed (config.RETIRED). The batch digests and the
stage digests did not change.

    python3 tests/train/test_stream_hashes.py --print   # the digests as they are now
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import unittest

import torch

from train.nano.corpus.curriculum import STAGES
from train.nano.corpus.generate import example
from train.common.heldout import filter as heldout_filter
from train.nano.recipe import HELDOUT_FILES

# The held-out set the recipe pins (as run_recipe gives it to its processes): the shipped
# model's, whatever tasks were held out after it.
os.environ[heldout_filter.FILES_ENV] = ",".join(HELDOUT_FILES)
heldout_filter.default.cache_clear()

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

EXAMPLES = 30  # per stage and seed
EVAL_SEED = 1_000_003  # train.py's EVAL_SEED_OFFSET over seed 0


def recipe_calls() -> list[tuple[str, list[str]]]:
    """(key, train.py argv without --run) of every train.py call of the recipe (train/nano/recipe.py):
    the key is its run folder and the step it ends at (as a run from scratch reaches it)."""
    from train.nano.recipe import Recipe, Train
    from train.nano.run_recipe import plan, train_argv

    return [
        (f"{st.run}:{st.end if st.end is not None else 'end'}", train_argv(st, "x")[2:])
        for st in plan(Recipe())
        if isinstance(st.stage, Train)
    ]


def _digest(h, x) -> None:
    if torch.is_tensor(x):
        h.update(f"{x.dtype}{tuple(x.shape)}".encode())
        h.update(x.contiguous().numpy().tobytes())
    elif isinstance(x, (list, tuple)):
        h.update(b"[")
        for v in x:
            _digest(h, v)
        h.update(b"]")
    else:
        h.update(repr(x).encode())


def stage_digest(stage: int) -> str:
    h = hashlib.sha256()
    for seed in (0, EVAL_SEED):
        for i in range(EXAMPLES):
            ex = example(seed, stage, i)
            _digest(h, (ex.prefix, ex.suffixes, ex.answers, ex.kind, ex.chat, ex.option_letters))
    return h.hexdigest()[:16]


def call_digests(argv: list[str]) -> tuple[str, str]:
    """(its configuration, its batches): train.py's parsed arguments (wall-time budgets aside, the
    tokenizer by its file name: its folder moved with train/'s layout, issue 61) and one packed
    batch per stage it trains at, at its last step."""
    from train.nano import train
    from train.nano.batching import Packer
    from train.nano.stream import path_of, step_batch
    from train.nano.tokenizer.bpe import Tokenizer

    a = train.parse(["--run", "x", *argv])
    conf = {k: v for k, v in vars(a).items() if k not in ("run", "minutes", "total_minutes")}
    conf["tokenizer"] = os.path.basename(a.tokenizer)
    h_conf = hashlib.sha256(json.dumps(conf, sort_keys=True).encode()).hexdigest()[:16]
    path = path_of(a)
    stages = (
        path if path else [a.set_stage] if a.set_stage is not None else list(range(a.stage, a.max_stage + 1))
    )
    packer = Packer(Tokenizer.load(a.tokenizer))
    h = hashlib.sha256()
    for s in stages:
        b = step_batch(a, packer, a.steps - 1, s, {})
        for k in sorted(b):
            h.update(k.encode())
            _digest(h, b[k])
    return h_conf, h.hexdigest()[:16]


STAGE_HASHES = {
    0: "dfa9d4a47ecedab2",
    1: "56ec5458a4768adc",
    2: "14d5a6c29c173bb3",
    3: "4fcdf74dcf0079c4",
    4: "0435dbe0fb7c81de",
    5: "edeeed31acded42e",
    6: "39ea0a859e49dd91",
    7: "ebf703b6e2d911c0",
    8: "e413471e9e1e6e3d",
    9: "b787978d2e3635fe",
    10: "7c7ba7d91bc52033",
    11: "4bbc88deaa20e7c8",
    12: "c5bb4f3b681ec746",
    13: "110cb4fee07a34f3",
    14: "8c1a59c7ced2951e",
    15: "b052bbc59714e169",
    16: "d4af74fddde7dd0c",
    17: "b8d372cd79c9bfa2",
    18: "591916f097ecaaa8",
    19: "afd1f42977e04b62",
    20: "a8517167ce9540ad",
    21: "578b17ed477c0272",
    22: "7808dc1943f1afaf",
    23: "a0786e789319847f",
    24: "4bc54c8540314af8",
    25: "92231c2caf058981",
    26: "9fd181edf86679c4",
    27: "4385a63a38462b80",
    30: "a3b2722c500d138e",
    37: "a7df13cfbfe1f154",
    47: "7d50e1519ad1bd6d",
    51: "75c5a11eb0969bca",
    53: "0f86b8690f4210c9",
    61: "090ac9c89a3cec6f",
    62: "58c04e5798d96fa5",
    65: "3a8e0f5d0c0408a4",
    66: "65e93a6741d8cc77",
    67: "621f1f95a9c0ceab",
    68: "d151f0bb7c95d71d",
    69: "cde05b622420515a",
    71: "34e5794ff468bceb",
    74: "8e6b101f4c4a4d55",
}
CALL_HASHES = {
    'scenes:27000': ('df918b20af701434', '663b9f95b0df346e'),
    'scenes:45000': ('d2d44bb3e89cedeb', 'e3a98cafea573fea'),
    'scenes:49000': ('3996c9a11ce332bd', '275b736ba8ac9b6e'),
    'words-narrow:end': ('ba419b060c50d0a8', 'e76f4bd26c755e3b'),
    'words:39000': ('24e5248a2b547124', 'd89d6f71a050d60f'),
    'joint:43000': ('0c2c037faab67cf6', '75dd02869b851d88'),
    'joint:45000': ('2cf5daa8665b5518', '9e1b3b8e3d870e04'),
    'joint:47500': ('e2c4380e6f2cfa6a', 'a11de01e703d56de'),
    'joint:49500': ('d443c93d6e5e7116', '7597c89d88023707'),
    'joint:58500': ('3225055f5f72497c', 'aa55f9069ba28c06'),
    'joint:61500': ('fe104f26346a592f', '200dc120053bc745'),
    'joint:63000': ('46740079d34dcde7', '37b41075959131aa'),
    'joint:65000': ('daa0c94070a24db5', '900661e2e237c42c'),
    'joint:67000': ('2ca36c1883172cd8', '789aadf96e630a73'),
    'joint:70000': ('acbd91a722caabd3', '550e446a956b8900'),
    'joint:71500': ('1a25a0ab300e7337', '0ea6816a912c8e42'),
    'joint:73000': ('7c5f5ae05484e8e6', 'e97b28581958f4e8'),
    'polish:76000': ('a187f022b95b6b56', '8de7332d01970091'),
    'polish:77500': ('c868b1597666c555', 'dd8403c32fdcfcaf'),
    'polish:80500': ('560859e6ff70c33f', 'bf2b7e1bd315899f'),
    'polish:82000': ('489097d528940e63', '9108682295aa6922'),
    'polish:85000': ('22434d78dca16733', 'c298c0630c53e5db'),
    'polish:86500': ('e45a1281f9b3418a', '848428ab8ea9f8b7'),
    'polish:89500': ('b001430ba506791d', 'ddf13a2f04c82ba6'),
    'polish:91000': ('668ebfc5ea551a2e', '05249005630065ef'),
    'polish:94000': ('8a3bcffb8306d24d', 'e6ad4af79580f1e5'),
    'polish:95500': ('5b82ffe09f161ca2', 'dc8a267f6a39ddb5'),
    'polish:98500': ('7219ff38c610242f', 'bf8dbd94f9d9ff29'),
    'polish:100000': ('6decdc6b75213529', '12f9b5273b625361'),
    'polish:103000': ('f09e5657fba7488e', '6d36c62cd4d572e6'),
    'polish:104500': ('ccbfc8e0a3a5dd51', 'd200354527be3a23'),
    'polish:107500': ('1beb0a862ebb0130', 'da9d2f1bea10c774'),
    'polish:109000': ('c1d71cc89a17606f', '92f16a833ecfe4d5'),
    'polish:112000': ('58207ab86a186c08', 'e09d695f12d4f558'),
    'polish:113500': ('da7c06a760e48e40', '1b78fd0361f5abe1'),
    'polish:116500': ('ebdcc4978664f25c', 'bdc50e0fd4710e08'),
    'polish:118000': ('3bd057148412b710', 'adad8a8f29187a62'),
    'polish:121000': ('f2856ce2f4c352ca', 'f6090063755e1cf0'),
    'polish:122500': ('5470a2c63b1d99df', 'fbdbda58814eabfe'),
    'polish:125500': ('bab2b14268afeba4', 'dd9031d7628d6821'),
    'polish:127000': ('4c9bf9a1c13f1931', '4f7ff1fc6238c2c4'),
}


class StreamHashTest(unittest.TestCase):
    def test_every_stage_stream(self):
        self.assertEqual(sorted(STAGE_HASHES), sorted(STAGES))
        for s, want in STAGE_HASHES.items():
            with self.subTest(stage=s):
                self.assertEqual(stage_digest(s), want)

    def test_every_recipe_call(self):
        calls = recipe_calls()
        self.assertEqual(sorted(k for k, _ in calls), sorted(CALL_HASHES))
        for key, argv in calls:
            with self.subTest(call=key):
                self.assertEqual(call_digests(argv), CALL_HASHES[key])


if __name__ == "__main__":
    if sys.argv[1:] == ["--print"]:
        print("STAGE_HASHES = {")
        for s in STAGES:
            print(f"    {s}: {stage_digest(s)!r},")
        print("}")
        print("CALL_HASHES = {")
        for key, argv in recipe_calls():
            print(f"    {key!r}: {call_digests(argv)!r},")
        print("}")
    else:
        unittest.main()
