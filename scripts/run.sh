#!/usr/bin/env bash
# The main job on a fresh machine: set up, build, then run it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build >/dev/null
exec build/meadow-mind cartpole "$@"
