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
when the TrainConfig flags no stage set were removed (config.RETIRED), and when the stages were
named (each keeps its number as its seed; the recipe's replay lists became named tuples). The
batch digests and the stage digests did not change (the stage digests are keyed by name now).

    python3 tests/train/test_stream_hashes.py --print   # the digests as they are now
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import unittest

import torch

from train.nano.corpus.curriculum import STAGES, order
from train.nano.corpus.generate import example
from train.common.heldout import filter as heldout_filter
from train.nano.recipe import HELDOUT_FILES

# The held-out set the recipe pins (as run_recipe gives it to its processes): the shipped
# model's, whatever tasks were held out after it.
os.environ[heldout_filter.FILES_ENV] = ",".join(HELDOUT_FILES)
heldout_filter.default.cache_clear()


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


def stage_digest(stage: str) -> str:
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
    ladder = list(STAGES)[order(a.stage) : order(a.max_stage) + 1]
    stages = path if path else [a.set_stage] if a.set_stage is not None else ladder
    packer = Packer(Tokenizer.load(a.tokenizer))
    h = hashlib.sha256()
    for s in stages:
        b = step_batch(a, packer, a.steps - 1, s, {})
        for k in sorted(b):
            h.update(k.encode())
            _digest(h, b[k])
    return h_conf, h.hexdigest()[:16]


STAGE_HASHES = {
    "compact-plateau": "dfa9d4a47ecedab2",
    "compact-shuffled": "56ec5458a4768adc",
    "three-four-options": "14d5a6c29c173bb3",
    "one-token-gap": "4fcdf74dcf0079c4",
    "few-templates": "0435dbe0fb7c81de",
    "word-tables-compact": "edeeed31acded42e",
    "wide-mix": "39ea0a859e49dd91",
    "widest-mix": "ebf703b6e2d911c0",
    "first-scenes": "e413471e9e1e6e3d",
    "scene-same-way": "b787978d2e3635fe",
    "scene-relational": "7c7ba7d91bc52033",
    "scene-clauses": "4bbc88deaa20e7c8",
    "scenes-and-words": "c5bb4f3b681ec746",
    "mixed-clauses": "110cb4fee07a34f3",
    "still-by-letter": "8c1a59c7ced2951e",
    "easy-chat-words": "b052bbc59714e169",
    "chat-plateau": "d4af74fddde7dd0c",
    "chat-three-options": "b8d372cd79c9bfa2",
    "chat-three-four-options": "591916f097ecaaa8",
    "chat-shuffled": "afd1f42977e04b62",
    "gap-one-token": "a8517167ce9540ad",
    "gap-two-tokens": "578b17ed477c0272",
    "letter-first": "7808dc1943f1afaf",
    "leads-and-joiners": "a0786e789319847f",
    "option-texts": "4bc54c8540314af8",
    "word-tables": "92231c2caf058981",
    "rare-conditions": "9fd181edf86679c4",
    "partial-matches": "4385a63a38462b80",
    "rare-places": "a3b2722c500d138e",
    "still-places": "a7df13cfbfe1f154",
    "binding-drill": "7d50e1519ad1bd6d",
    "reworded-marked": "75c5a11eb0969bca",
    "lookup-drill": "0f86b8690f4210c9",
    "final-mix": "090ac9c89a3cec6f",
    "lookup-by-letter": "58c04e5798d96fa5",
    "reworded": "3a8e0f5d0c0408a4",
    "default-texts": "65e93a6741d8cc77",
    "events": "621f1f95a9c0ceab",
    "made-up-words": "d151f0bb7c95d71d",
    "events-shared": "cde05b622420515a",
    "events-one-form": "34e5794ff468bceb",
    "events-same-end": "8e6b101f4c4a4d55",
}
CALL_HASHES = {
    "scenes:27000": ("e3df5bf3f69ae7d5", "663b9f95b0df346e"),
    "scenes:45000": ("7fe76d3515369f88", "e3a98cafea573fea"),
    "scenes:49000": ("365538157d1b7fb4", "275b736ba8ac9b6e"),
    "words-narrow:end": ("6aac0840936bc980", "e76f4bd26c755e3b"),
    "words:39000": ("3cc5d8814174e08b", "d89d6f71a050d60f"),
    "joint:43000": ("d6fb6404c9ad446c", "75dd02869b851d88"),
    "joint:45000": ("8ae08fe4dcc71ebb", "9e1b3b8e3d870e04"),
    "joint:47500": ("1aae189d28274d5b", "a11de01e703d56de"),
    "joint:49500": ("621a4985a1eb46a7", "7597c89d88023707"),
    "joint:58500": ("d878072f0a96ba3d", "aa55f9069ba28c06"),
    "joint:61500": ("975842dfdaa7f9d4", "200dc120053bc745"),
    "joint:63000": ("a213b6dbac1c21e8", "37b41075959131aa"),
    "joint:65000": ("f56d770c1e9ad74a", "900661e2e237c42c"),
    "joint:67000": ("b8ed24f119fd2a42", "789aadf96e630a73"),
    "joint:70000": ("e86250c2c8a6f71c", "550e446a956b8900"),
    "joint:71500": ("42b95b0ce96e851c", "0ea6816a912c8e42"),
    "joint:73000": ("da4340e0be3830ea", "e97b28581958f4e8"),
    "polish:76000": ("bcfb47ee1f3277a1", "8de7332d01970091"),
    "polish:77500": ("12af48c791243631", "dd8403c32fdcfcaf"),
    "polish:80500": ("2e9adacc6e27323e", "bf2b7e1bd315899f"),
    "polish:82000": ("b2a7a222f6f6e086", "9108682295aa6922"),
    "polish:85000": ("8a7eb3ec819430a5", "c298c0630c53e5db"),
    "polish:86500": ("2005c6742b6d79ff", "848428ab8ea9f8b7"),
    "polish:89500": ("6a2dd89aefa4dcde", "ddf13a2f04c82ba6"),
    "polish:91000": ("ed716f52e119c24a", "05249005630065ef"),
    "polish:94000": ("a18a37421404bb12", "e6ad4af79580f1e5"),
    "polish:95500": ("fcea93cf016bebb5", "dc8a267f6a39ddb5"),
    "polish:98500": ("c78bf8ee158138e3", "bf8dbd94f9d9ff29"),
    "polish:100000": ("c4b973a8ba280f73", "12f9b5273b625361"),
    "polish:103000": ("8ec171aa54dea25c", "6d36c62cd4d572e6"),
    "polish:104500": ("cf1ee6ec842d5722", "d200354527be3a23"),
    "polish:107500": ("f4f6144d7fb813af", "da9d2f1bea10c774"),
    "polish:109000": ("02a8a104d1c79065", "92f16a833ecfe4d5"),
    "polish:112000": ("af6e75d0e664f6cf", "e09d695f12d4f558"),
    "polish:113500": ("08a9adf5d251bd2e", "1b78fd0361f5abe1"),
    "polish:116500": ("3e72d3e44b2734e8", "bdc50e0fd4710e08"),
    "polish:118000": ("e2e40a5d041fec14", "adad8a8f29187a62"),
    "polish:121000": ("be109215e2703291", "f6090063755e1cf0"),
    "polish:122500": ("aac3a8b9eb86b1bc", "fbdbda58814eabfe"),
    "polish:125500": ("7255f20acf31be88", "dd9031d7628d6821"),
    "polish:127000": ("f2478a5a8ec467db", "4f7ff1fc6238c2c4"),
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
            print(f"    {s!r}: {stage_digest(s)!r},")
        print("}")
        print("CALL_HASHES = {")
        for key, argv in recipe_calls():
            print(f"    {key!r}: {call_digests(argv)!r},")
        print("}")
    else:
        unittest.main()
