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
one folder per model (issue 61): the tokenizer is named by its file, not its path; the batch
digests and the stage digests did not change.

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
    packer = Packer(Tokenizer.load(a.tokenizer), a.max_len, a.aux_mask, a.reveal, prefix_mask=a.prefix_mask)
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
    'scenes:27000': ('d5ae7ea9832c2340', '663b9f95b0df346e'),
    'scenes:45000': ('82ad85461072df82', 'e3a98cafea573fea'),
    'scenes:49000': ('9e4c01b4ce2889f2', '275b736ba8ac9b6e'),
    'words-narrow:end': ('1be09fdff788a764', 'e76f4bd26c755e3b'),
    'words:39000': ('399f6130660714f4', 'd89d6f71a050d60f'),
    'joint:43000': ('3322578451fb9a37', '75dd02869b851d88'),
    'joint:45000': ('aecfe81c5ef7d404', '9e1b3b8e3d870e04'),
    'joint:47500': ('7454f060d301f01e', 'a11de01e703d56de'),
    'joint:49500': ('f8fd8f9d424e6a26', '7597c89d88023707'),
    'joint:58500': ('b61691efad9f89cc', 'aa55f9069ba28c06'),
    'joint:61500': ('711d0993639bd5e2', '200dc120053bc745'),
    'joint:63000': ('367498b86d00277f', '37b41075959131aa'),
    'joint:65000': ('cebcc8689c5a86ee', '900661e2e237c42c'),
    'joint:67000': ('75e30cb68f6ea00a', '789aadf96e630a73'),
    'joint:70000': ('4ef19ace85c58892', '550e446a956b8900'),
    'joint:71500': ('71a84d1965aa04ed', '0ea6816a912c8e42'),
    'joint:73000': ('ab7020164536beca', 'e97b28581958f4e8'),
    'polish:76000': ('c683755a824de12b', '8de7332d01970091'),
    'polish:77500': ('a38e9a5454cfd7e2', 'dd8403c32fdcfcaf'),
    'polish:80500': ('6767735d12719bb0', 'bf2b7e1bd315899f'),
    'polish:82000': ('2cd76859982ad5d1', '9108682295aa6922'),
    'polish:85000': ('c5645f84d69da70c', 'c298c0630c53e5db'),
    'polish:86500': ('a29cfa13da8012f0', '848428ab8ea9f8b7'),
    'polish:89500': ('31ca3d35ff29e517', 'ddf13a2f04c82ba6'),
    'polish:91000': ('9a5495fd277b7f4f', '05249005630065ef'),
    'polish:94000': ('50b1e2a55ab8187e', 'e6ad4af79580f1e5'),
    'polish:95500': ('3c1f9a1e405db35c', 'dc8a267f6a39ddb5'),
    'polish:98500': ('b0f480e0e880a135', 'bf8dbd94f9d9ff29'),
    'polish:100000': ('56bb467cee99b4e8', '12f9b5273b625361'),
    'polish:103000': ('125a7b4e81ed7330', '6d36c62cd4d572e6'),
    'polish:104500': ('e5a2bb71f3ded622', 'd200354527be3a23'),
    'polish:107500': ('d469e11404cbb788', 'da9d2f1bea10c774'),
    'polish:109000': ('e711e0e302246d4f', '92f16a833ecfe4d5'),
    'polish:112000': ('7af8926dd7730b3b', 'e09d695f12d4f558'),
    'polish:113500': ('9cceff89061787af', '1b78fd0361f5abe1'),
    'polish:116500': ('f49b6bda035779dc', 'bdc50e0fd4710e08'),
    'polish:118000': ('b92d1aee338d3e03', 'adad8a8f29187a62'),
    'polish:121000': ('934a1d448a69e5ae', 'f6090063755e1cf0'),
    'polish:122500': ('865d43da30452ecd', 'fbdbda58814eabfe'),
    'polish:125500': ('7001f0208970570b', 'dd9031d7628d6821'),
    'polish:127000': ('6a2640980ddb111b', '4f7ff1fc6238c2c4'),
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
