#!/usr/bin/env bash
# A wheel that installs on any x86-64 Linux with glibc >= 2.36 (manylinux_2_36: Debian 12's),
# whatever its distribution or Python install: `pip wheel .`, then auditwheel's standard repair,
# which copies every shared library the extension needs into the wheel (meadow_mind.libs/) and
# points the extension at them; scripts/wheel_vendor.py adds the few the manylinux policy
# trusts the system for (X11 for Cairo, libbsd, libexpat), so only glibc, the C++ runtime and
# zlib come from the system. Writes dist/meadow_mind-*-manylinux_2_36_x86_64.whl.
#
# ICU travels without its 30 MB locale data: what we use of it (character properties, NFC and
# NFD) is compiled into libicuuc, so the data library the wheel carries is ICU's own empty stub
# (built here by ICU's pkgdata). The tokenizer suites, every-code-point tests included, pass
# against that stub. OpenBLAS is linked statically (pyproject.toml): only its GEMM kernels.
# Needs scripts/setup.sh first (Debian's libraries, icu-devtools, .venv-py with auditwheel).
set -euo pipefail
cd "$(dirname "$0")/.."
# The main build's compiler and ccache settings, so the wheel's objects come from the cache.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true CC=cc CXX=c++
rm -rf dist build-wheel-raw
.venv-py/bin/pip wheel . -w build-wheel-raw --no-deps -q --disable-pip-version-check

stub=$(mktemp -d)
trap 'rm -rf "$stub" build-wheel-raw' EXIT
icu_version=$(pkg-config --modversion icu-uc)  # 72.1
icu_major=${icu_version%%.*}
mkdir -p "$stub/tmp" "$stub/out"
: >"$stub/empty.lst"
pkgdata -q -m dll -p "icudt${icu_major}l" -e "icudt${icu_major}" -L icudata -r "$icu_version" \
  -T "$stub/tmp" -d "$stub/out" -s "$stub" "$stub/empty.lst"

plat=manylinux_2_36_x86_64
PATH="$PWD/.venv-py/bin:$PATH" LD_LIBRARY_PATH="$stub/out" auditwheel repair -w dist \
  build-wheel-raw/meadow_mind-*.whl 2>/dev/null
# The libraries auditwheel trusts the system for but minimal images lack (X11 for Cairo, ...).
wheel=$(PATH="$PWD/.venv-py/bin:$PATH" .venv-py/bin/python scripts/wheel_vendor.py dist/meadow_mind-*.whl "$plat")
.venv-py/bin/auditwheel show "$wheel" | tr '\n' ' ' | grep -q "consistent with the following platform tag: \"$plat\"" ||
  { echo "auditwheel show: $wheel is not $plat" >&2; exit 1; }
echo "built $wheel ($(du -h "$wheel" | cut -f1))"
