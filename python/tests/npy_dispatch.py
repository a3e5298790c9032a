"""Prints the NumPy SIMD dispatch targets this CPU has, for NPY_DISABLE_CPU_FEATURES: with them
off, NumPy's sin/cos are glibc's, as when Gymnasium's reference traces were recorded."""

import numpy.core._multiarray_umath as umath

print(" ".join(f for f in umath.__cpu_dispatch__ if umath.__cpu_features__.get(f)))
