#!/usr/bin/env bash
# The Python package as a user gets it: `pip wheel .`, the wheel installed into a fresh
# virtualenv of Debian's /usr/bin/python3, then used from outside the checkout with an empty
# home (so the model is the one the wheel embeds). Needs scripts/setup.sh first.
set -euo pipefail
cd "$(dirname "$0")/.."
# The main build's compiler and ccache settings, so the wheel's objects come from the cache.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true CC=cc CXX=c++
rm -rf dist
.venv-py/bin/pip wheel . -w dist --no-deps -q --disable-pip-version-check
wheel=$(ls dist/meadow_mind-*.whl)
echo "built $wheel ($(du -h "$wheel" | cut -f1))"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 -m venv "$tmp/venv"
numpy=$(grep '^numpy==' python/requirements-dev.txt)
"$tmp/venv/bin/pip" install -q --disable-pip-version-check "$wheel" "$numpy"
cd "$tmp"
export HOME="$tmp/home"
unset XDG_CACHE_HOME MEADOW_MIND_MODEL
"$tmp/venv/bin/python" - <<'PY'
import meadow_mind
from meadow_mind import MeadowMind, envs, run, tasks

mind = MeadowMind()
assert mind.model_path.endswith("site-packages/meadow_mind/models/meadow-nano.gguf"), mind.model_path
ok, n = mind.check(tasks.cartpole())
eps = run(tasks.mountaincar(), mind=mind, episodes=1)
print(f"wheel: {meadow_mind.__file__}\n  exam {n} right; mountaincar: {eps[0].verdict.text}")
assert ok and eps[0].verdict.ok
PY
test -f "$tmp/venv/lib/python3.11/site-packages/meadow_mind/_core.pyi"
"$tmp/venv/bin/python" -m meadow_mind list >/dev/null
"$tmp/venv/bin/meadow-mind" check frozenlake | tail -1
echo "wheel: OK"
