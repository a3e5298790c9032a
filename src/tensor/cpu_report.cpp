// The one-line account of which SIMD path and which BLAS kernel this process runs.
#include <cblas.h>

#include <cstdlib>
#include <string>

#include "tensor/blas_core.hpp"
#include "tensor/ops.hpp"
#include "tensor/simd_kernels.hpp"

namespace meadow::tensor {

std::string cpu_report() {
  using namespace detail;
  const CpuFeatures f = detect_cpu_features();
  const std::string core = blas_core_name();
  const std::string best = best_core_for(f);
  std::string blas = openblas_get_config();
  // "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH ..." -> "OpenBLAS 0.3.21"
  if (auto sp = blas.find(' '); sp != std::string::npos) {
    if (auto sp2 = blas.find(' ', sp + 1); sp2 != std::string::npos) blas.resize(sp2);
  }
  std::string how;
  if (const char* from = std::getenv(kReexecMarker)) {
    how = std::string("corrected from ") + from;
  } else if (std::getenv("OPENBLAS_CORETYPE")) {
    how = "set by OPENBLAS_CORETYPE";
  } else {
    how = "detected";
  }
  std::string line = std::string("simd ") + simd_target_name() + " (Highway runtime dispatch); " +
                     blas + " core " + core + " (" + how +
                     "), single-threaded per tile, tiles split over Threads; cpu " +
                     (f.avx512 ? (f.avx512_bf16 ? "AVX-512+BF16" : "AVX-512")
                               : (f.avx2_fma ? "AVX2" : "pre-AVX2"));
  if (!best.empty() && core_tier(core) < core_tier(best)) {
    line += "; WARNING: BLAS core slower than the CPU allows (want " + best +
            "; call ensure_fast_blas or set OPENBLAS_CORETYPE=" + best + ")";
  }
  return line;
}

}  // namespace meadow::tensor
