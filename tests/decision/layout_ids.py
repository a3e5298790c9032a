#!/usr/bin/env python3
"""Prompt ids of the training pipeline's chat layout (train/nano/corpus/layout.py) tokenized by the
training tokenizer (train/nano/tokenizer), printed as JSON: the reference the runtime's prompt
builder must reproduce.

    layout_ids.py JSON   with JSON = {"rule": ..., "options": [["A", "text"], ...], "situation": ...}
prints {"prefix": [ids], "suffix": [ids], "mask": id}
"""

import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)  # run as a script by the C++ tests: the train package lives at the root

from train.nano.corpus import layout, templates  # noqa: E402
from train.nano.tokenizer.bpe import Tokenizer  # noqa: E402

q = json.loads(sys.argv[1])
tok = Tokenizer.load(os.path.join(ROOT, "train", "nano", "tokenizer", "vocab.json"))
opts = "".join(f"{letter}) {text}\n" for letter, text in q["options"])
prefix = layout.chat_prefix(templates.DEFAULT_SYSTEM, q["rule"], opts)
suffix = layout.chat_suffix(q["situation"])
print(json.dumps({"prefix": tok.encode(prefix), "suffix": tok.encode(suffix), "mask": tok.mask}))
