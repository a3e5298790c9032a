// Which OpenBLAS kernel ("core") runs, whether it matches the CPU, and the decision to fix it.
// The decision is a pure function so it can be tested without re-executing anything.
#pragma once

#include <string>
#include <string_view>

namespace meadow::tensor::detail {

struct CpuFeatures {
  bool avx2_fma = false;
  bool avx512 = false;  // F + CD + BW + DQ + VL, what OpenBLAS's SkylakeX kernels use
  bool avx512_bf16 = false;
};

CpuFeatures detect_cpu_features();

// 3 = AVX-512 kernels, 2 = AVX2 kernels, 1 = anything older (SSE/AVX1 kernels).
int core_tier(std::string_view core);
// The fastest core OpenBLAS offers for these features; "" when nothing beats the default.
std::string best_core_for(const CpuFeatures& f);

struct BlasDecision {
  enum Kind { Fine, ReExec, CannotFix } kind = Fine;
  std::string core;    // ReExec: the OPENBLAS_CORETYPE to set
  std::string reason;  // CannotFix: why
};
// detected: openblas_get_corename(); user_coretype: OPENBLAS_CORETYPE as the user set it
// (empty if unset); reexeced: this process is already the corrected re-exec.
BlasDecision decide_blas_core(std::string_view detected, const CpuFeatures& f,
                              std::string_view user_coretype, bool reexeced);

// The OpenBLAS core name in use ("Cooperlake", "Prescott", ...).
std::string blas_core_name();
// Prints one line to stderr, once per process, if the BLAS core is slower than the CPU allows
// (so a library user who never calls ensure_fast_blas is not left running slow silently).
void warn_once_if_slow_blas();
// Sets OpenBLAS's (process-wide) thread count if it differs.
void set_blas_threads(int n);

// Environment variable our re-exec sets to the originally detected core (loop guard + report).
inline constexpr const char* kReexecMarker = "MEADOW_BLAS_REEXEC_FROM";

}  // namespace meadow::tensor::detail
