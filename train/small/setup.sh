#!/usr/bin/env bash
# The trainer's venv (.venv-train): Debian's /usr/bin/python3 (not the pyenv python3 on PATH)
# with the pins of train/small/requirements.txt. Idempotent. Not needed by the C++ binary or CI.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=.venv-train
req=train/small/requirements.txt
[ -x "$venv/bin/python" ] || /usr/bin/python3 -m venv --system-site-packages "$venv"
stamp="$venv/.requirements.sha256"
want=$(sha256sum "$req" | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$req"
  echo "$want" >"$stamp"
fi
scripts/fetch_models.sh
