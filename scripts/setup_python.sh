#!/usr/bin/env bash
# The project's Python: .venv, a venv of Debian's /usr/bin/python3 (not the pyenv python3 on
# PATH, which lacks Debian's numpy and torch) with its site packages, plus the pinned reference
# packages of tools/requirements-reference.txt (and, without their dependencies, those of
# tools/requirements-reference-nodeps.txt). Idempotent: reinstalls only when the pins change.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv
req=tools/requirements-reference.txt
nodeps=tools/requirements-reference-nodeps.txt
[ -x "$venv/bin/python" ] || /usr/bin/python3 -m venv --system-site-packages "$venv"
stamp="$venv/.requirements.sha256"
want=$(cat "$req" "$nodeps" | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  pip=("$venv/bin/pip" install -q --disable-pip-version-check)
  if "${pip[@]}" -r "$req" && "${pip[@]}" --no-deps -r "$nodeps"; then
    echo "$want" >"$stamp"
  else
    echo "setup_python: could not install $req (offline?); reference tests will skip" >&2
  fi
fi
