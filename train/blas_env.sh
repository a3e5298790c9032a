# shellcheck shell=bash
# Sourced by the recipe scripts: pins OpenBLAS's kernels so a rerun retraces a committed run.
# Debian's OpenBLAS misdetects these VMs' CPU (the slowest kernels), and float32 results depend on
# the kernels: a run under Haswell's differs from one under SkylakeX's from its first logged step
# (train/README.md, session 22). The committed runs used SkylakeX, so on any AVX-512 CPU the recipe
# uses it whatever the environment says; elsewhere (SkylakeX would be an illegal instruction) the
# environment's choice stands.
if grep -qw avx512f /proc/cpuinfo 2>/dev/null; then
  export OPENBLAS_CORETYPE=SkylakeX
fi
# torch.set_num_threads does not bound OpenBLAS, and one BLAS thread is the fastest at these sizes
# (train.py --threads sets torch's own)
export OPENBLAS_NUM_THREADS=1
