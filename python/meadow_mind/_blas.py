"""Pick OpenBLAS's kernel before the extension loads it.

Debian's OpenBLAS may choose a kernel older than the CPU supports (several times slower
matrix products). It reads OPENBLAS_CORETYPE only when it initialises, which happens when
``_core`` is imported; the ``meadow-mind`` executable re-executes itself instead, which a
Python process cannot. Same choice as src/tensor/blas_core.cpp.
"""

from __future__ import annotations

import os


def _cpu_flags() -> set[str]:
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def best_core(flags: set[str]) -> str:
    """The OpenBLAS core name this CPU's features allow ('' when the default is fine)."""
    if {"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"} <= flags:
        return "Cooperlake" if "avx512_bf16" in flags else "SkylakeX"
    if "avx2" in flags and "fma" in flags:
        return "Haswell"
    return ""


def choose_core() -> None:
    """Set OPENBLAS_CORETYPE unless the user did."""
    if os.environ.get("OPENBLAS_CORETYPE"):
        return
    core = best_core(_cpu_flags())
    if core:
        os.environ["OPENBLAS_CORETYPE"] = core
