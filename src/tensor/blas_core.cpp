// OpenBLAS core detection and the re-exec that corrects a misdetected core.
#include "tensor/blas_core.hpp"

#include <cblas.h>
#include <strings.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "tensor/ops.hpp"

namespace meadow::tensor::detail {

CpuFeatures detect_cpu_features() {
  // __builtin_cpu_supports also checks that the OS saves the wide registers (XCR0).
  CpuFeatures f;
  f.avx2_fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  f.avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
             __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
             __builtin_cpu_supports("avx512vl");
  f.avx512_bf16 = f.avx512 && __builtin_cpu_supports("avx512bf16");
  return f;
}

int core_tier(std::string_view core) {
  static constexpr std::array<std::string_view, 3> avx512{"SkylakeX", "Cooperlake",
                                                          "SapphireRapids"};
  static constexpr std::array<std::string_view, 3> avx2{"Haswell", "Zen", "Excavator"};
  auto in = [&](auto& list) {
    for (auto name : list) {
      if (name.size() == core.size() && strncasecmp(name.data(), core.data(), name.size()) == 0)
        return true;
    }
    return false;
  };
  if (in(avx512)) return 3;
  if (in(avx2)) return 2;
  return 1;
}

std::string best_core_for(const CpuFeatures& f) {
  if (f.avx512) return f.avx512_bf16 ? "Cooperlake" : "SkylakeX";
  if (f.avx2_fma) return "Haswell";
  return "";
}

BlasDecision decide_blas_core(std::string_view detected, const CpuFeatures& f,
                              std::string_view user_coretype, bool reexeced) {
  const std::string best = best_core_for(f);
  if (best.empty() || core_tier(detected) >= core_tier(best)) return {};
  if (!user_coretype.empty() && !reexeced) {
    return {BlasDecision::CannotFix, "",
            "OPENBLAS_CORETYPE=" + std::string(user_coretype) + " is set by the environment"};
  }
  if (reexeced) {
    return {BlasDecision::CannotFix, "", "this OpenBLAS did not accept OPENBLAS_CORETYPE=" + best};
  }
  return {BlasDecision::ReExec, best, ""};
}

std::string blas_core_name() {
  const char* name = openblas_get_corename();
  return name ? name : "unknown";
}

void set_blas_threads(int n) {
  n = n < 1 ? 1 : n;
  if (openblas_get_num_threads() != n) openblas_set_num_threads(n);
}

void warn_once_if_slow_blas() {
  // Computed once per process (thread-safe static init), then immutable.
  static const bool checked = [] {
    const char* user = std::getenv("OPENBLAS_CORETYPE");
    const std::string detected = blas_core_name();
    const BlasDecision d = decide_blas_core(detected, detect_cpu_features(), user ? user : "",
                                            std::getenv(kReexecMarker) != nullptr);
    if (d.kind == BlasDecision::Fine) return true;
    const std::string best = best_core_for(detect_cpu_features());
    const std::string why = d.kind == BlasDecision::CannotFix
                                ? d.reason
                                : "call tensor::ensure_fast_blas first in main, or set "
                                  "OPENBLAS_CORETYPE=" +
                                      best;
    std::fprintf(stderr,
                 "warning: OpenBLAS uses core %s but this CPU supports %s (%s); matrix "
                 "products may run several times slower\n",
                 detected.c_str(), best.c_str(), why.c_str());
    return false;
  }();
  (void)checked;
}

}  // namespace meadow::tensor::detail

namespace meadow::tensor {

bool ensure_fast_blas(int argc, char** argv) {
  using namespace detail;
  const char* user = std::getenv("OPENBLAS_CORETYPE");
  const bool reexeced = std::getenv(kReexecMarker) != nullptr;
  const std::string detected = blas_core_name();
  const BlasDecision d =
      decide_blas_core(detected, detect_cpu_features(), user ? user : "", reexeced);
  if (d.kind == BlasDecision::Fine) return true;
  if (d.kind == BlasDecision::ReExec && argc > 0 && argv && argv[argc] == nullptr) {
    setenv("OPENBLAS_CORETYPE", d.core.c_str(), 1);
    setenv(kReexecMarker, detected.c_str(), 1);
    std::fflush(nullptr);
    execv("/proc/self/exe", argv);
    // Still here: exec failed; undo, and warn below.
    unsetenv("OPENBLAS_CORETYPE");
    unsetenv(kReexecMarker);
  }
  warn_once_if_slow_blas();
  return false;
}

}  // namespace meadow::tensor
