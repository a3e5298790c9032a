"""The environment the recipe's processes run in: OpenBLAS's kernels pinned, so a rerun retraces
a committed run.

Debian's OpenBLAS misdetects these VMs' CPU (the slowest kernels), and float32 results depend on
the kernels: a run under Haswell's differs from one under SkylakeX's from its first logged step
(max |dw| 0.036 after 2,000 steps). The committed runs used SkylakeX, so on any AVX-512 CPU
the recipe uses it whatever the environment says; elsewhere (SkylakeX would be an illegal
instruction) the environment's choice stands. One BLAS thread is the fastest at these sizes
(torch.set_num_threads does not bound OpenBLAS; train.py --threads sets torch's own).
"""

from __future__ import annotations

import os


def has_avx512(cpuinfo: str = "/proc/cpuinfo") -> bool:
    try:
        with open(cpuinfo) as f:
            return any(line.startswith("flags") and "avx512f" in line.split() for line in f)
    except OSError:
        return False


def pinned_env(env: dict | None = None) -> dict:
    """`env` (default: this process's) with the pins."""
    out = dict(os.environ if env is None else env)
    if has_avx512():
        out["OPENBLAS_CORETYPE"] = "SkylakeX"
    out["OPENBLAS_NUM_THREADS"] = "1"
    return out
