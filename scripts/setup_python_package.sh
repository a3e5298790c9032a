#!/usr/bin/env bash
# The Python package's environment: .venv-py, a plain venv of Debian's /usr/bin/python3 (not
# the pyenv python3 on PATH; no system site packages, so its NumPy 2 never meets the
# reference venv's torch 1.13) with python/requirements-dev.txt: nanobind and
# scikit-build-core to build the extension, the real Gymnasium to test against, pytest.
# Idempotent: reinstalls only when the pins change. Prints nothing when up to date.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv-py
req=python/requirements-dev.txt
[ -x "$venv/bin/python" ] || /usr/bin/python3 -m venv "$venv"
stamp="$venv/.requirements.sha256"
want=$(sha256sum "$req" | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$req"
  echo "$want" >"$stamp"
fi
