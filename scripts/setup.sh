#!/usr/bin/env bash
# Installs every Debian package meadow-mind needs, then configures and builds.
# Idempotent: safe to run again. Usage: scripts/setup.sh [build-dir] [cmake args...]
set -euo pipefail
cd "$(dirname "$0")/.."

pkgs=(
  build-essential cmake ninja-build ccache pkg-config git
  libgtest-dev
  libopenblas-dev libopenblas0-pthread libhwy-dev
  libbox2d-dev libcairo2-dev libgif-dev libpng-dev
  nlohmann-json3-dev libcli11-dev libcpp-httplib-dev zlib1g-dev libcurl4-openssl-dev libssl-dev
  libpcre2-dev libicu-dev icu-devtools  # icu-devtools: the wheel's ICU data stub (build_wheel.sh)
  libtomlplusplus-dev libmuparser-dev  # task files: TOML, perceiver expressions
  python3 python3-dev python3-numpy python3-torch python3-regex python3-venv python3-pip
  clang-format
  clang-14 libclang-rt-14-dev  # libFuzzer targets (fuzz/, scripts/fuzz.sh)
  wamerican wordnet
  chromium chromium-driver nginx-light  # the playground page in a browser, direct and behind README.md's nginx
)
# Node.js (for the reference tokenizer test) ships with the machine image; only add
# Debian's if none is present, since Debian's npm conflicts with a newer nodejs.
command -v node >/dev/null 2>&1 || pkgs+=(nodejs npm)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y --no-install-recommends "${missing[@]}"
fi

# The project venv (pinned reference packages), the Python package's venv (nanobind,
# Gymnasium, pytest) and the pinned pretrained models.
scripts/setup_python.sh
scripts/setup_python_package.sh
scripts/fetch_models.sh

# ccache keys on paths relative to the checkout, so a fresh clone elsewhere (CI) reuses it.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true

build="${1:-build}"
shift || true
# The Python extension is built with the package's venv; later arguments may turn it off.
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMEADOW_PYTHON=ON \
  -DPython_EXECUTABLE="$PWD/.venv-py/bin/python" "$@"
cmake --build "$build" -j"$(nproc)"
