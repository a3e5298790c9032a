#!/usr/bin/env bash
# The training environment (.venv-train) of every trainer in train/ and of tests/train*: Debian's
# /usr/bin/python3 (not the pyenv python3 on PATH) with its site packages and the pins of
# train/requirements.txt, then the pinned pretrained models meadow-small and meadow-reader start
# from. Idempotent. Not needed by the C++ binary.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv-train
req=train/requirements.txt
[ -x "$venv/bin/python" ] || /usr/bin/python3 -m venv --system-site-packages "$venv"
stamp="$venv/.requirements.sha256"
want=$(sha256sum "$req" | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$req"
  echo "$want" >"$stamp"
fi
scripts/fetch_models.sh
