#!/usr/bin/env bash
# The Python package as a user gets it: the manylinux wheel (scripts/build_wheel.sh) installed
# into a fresh virtualenv of a Python that is NOT Debian's (the pyenv `python3` on PATH), used
# from outside the checkout with an empty home (so the model is the one the wheel embeds) and
# no library path: the extension must find every library it needs inside the wheel.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build_wheel.sh
wheel=$(realpath dist/meadow_mind-*-manylinux_2_36_x86_64.whl)
size=$(stat -c %s "$wheel")
echo "wheel: $((size / 1024 / 1024)) MiB"
((size <= 30 * 1024 * 1024)) || { echo "the wheel is over 30 MiB" >&2; exit 1; }

py=$(command -v python3)
case "$(realpath "$py")" in
  # Still meaningful (the ldd check below), but say that the other-Python half did not run.
  /usr/bin/*) echo "note: python3 on PATH is Debian's ($py); no other Python to install into" ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$py" -m venv "$tmp/venv"
numpy=$(grep '^numpy==' python/requirements-dev.txt)
"$tmp/venv/bin/pip" install -q --disable-pip-version-check "$wheel" "$numpy"
checkout=$PWD
cd "$tmp"
export HOME="$tmp/home"
unset XDG_CACHE_HOME MEADOW_MIND_MODEL LD_LIBRARY_PATH PYTHONPATH
"$tmp/venv/bin/python" - "$checkout" <<'PY'
import os
import subprocess
import sys

import meadow_mind
from meadow_mind import MeadowMind, envs, run, tasks

checkout = sys.argv[1]
here = os.path.dirname(meadow_mind.__file__)
assert not here.startswith(checkout), here
mind = MeadowMind()
assert mind.model_path.startswith(here), mind.model_path
ok, n = mind.check(tasks.cartpole())
eps = run(tasks.mountaincar(), mind=mind, episodes=1)
print(f"wheel on {sys.executable} ({sys.version.split()[0]}): {here}")
print(f"  exam {n} right; mountaincar: {eps[0].verdict.text}")
assert ok and eps[0].verdict.ok
# Every library the extension loads that is not the C and C++ runtime comes from the wheel.
core = [f for f in os.listdir(here) if f.startswith("_core")][0]
ldd = subprocess.run(["ldd", os.path.join(here, core)], capture_output=True, text=True).stdout
# glibc, the C++ runtime and zlib: what every manylinux system has (scripts/wheel_vendor.py)
system = {"linux-vdso", "libc.so", "libm.so", "libstdc++", "libgcc_s", "ld-linux", "libpthread", "libdl", "librt", "libresolv", "libutil", "libz.so"}
outside = [line.split()[0] for line in ldd.splitlines()
           if "=>" in line and "meadow_mind.libs" not in line and not any(s in line for s in system)]
assert not outside, f"libraries from outside the wheel: {outside}"
PY
test -f "$tmp/venv/lib/python3.11/site-packages/meadow_mind/_core.pyi"
"$tmp/venv/bin/python" -m meadow_mind list >/dev/null
"$tmp/venv/bin/meadow-mind" check frozenlake | tail -1
echo "wheel: OK"
