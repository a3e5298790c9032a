// The decision to correct a misdetected OpenBLAS core, and the report line.
#include <gtest/gtest.h>

#include "tensor/blas_core.hpp"
#include "tensor/ops.hpp"
#include "tensor/simd_kernels.hpp"

namespace meadow::tensor::detail {
namespace {

const CpuFeatures kAvx512Bf16{true, true, true};
const CpuFeatures kAvx2{true, false, false};

TEST(BlasCore, TiersAndBestCore) {
  EXPECT_EQ(core_tier("Prescott"), 1);
  EXPECT_EQ(core_tier("Haswell"), 2);
  EXPECT_EQ(core_tier("cooperlake"), 3);
  EXPECT_EQ(best_core_for(kAvx512Bf16), "Cooperlake");
  EXPECT_EQ(best_core_for(CpuFeatures{true, true, false}), "SkylakeX");
  EXPECT_EQ(best_core_for(kAvx2), "Haswell");
  EXPECT_EQ(best_core_for(CpuFeatures{}), "");
}

TEST(BlasCore, ReExecsOnlyWhenMisdetectedAndUnforced) {
  auto d = decide_blas_core("Prescott", kAvx512Bf16, "", false);
  EXPECT_EQ(d.kind, BlasDecision::ReExec);
  EXPECT_EQ(d.core, "Cooperlake");
  EXPECT_EQ(decide_blas_core("Prescott", kAvx2, "", false).core, "Haswell");
  EXPECT_EQ(decide_blas_core("SkylakeX", kAvx512Bf16, "", false).kind, BlasDecision::Fine);
  EXPECT_EQ(decide_blas_core("Zen", kAvx2, "", false).kind, BlasDecision::Fine);
  // The user's OPENBLAS_CORETYPE is respected; a failed re-exec never loops.
  EXPECT_EQ(decide_blas_core("Prescott", kAvx512Bf16, "Prescott", false).kind,
            BlasDecision::CannotFix);
  EXPECT_EQ(decide_blas_core("Prescott", kAvx512Bf16, "Cooperlake", true).kind,
            BlasDecision::CannotFix);
}

TEST(BlasCore, ReportNamesSimdTargetAndCore) {
  const std::string r = cpu_report();
  EXPECT_NE(r.find(std::string("simd ") + simd_target_name()), std::string::npos) << r;
  EXPECT_NE(r.find("core " + blas_core_name()), std::string::npos) << r;
}

}  // namespace
}  // namespace meadow::tensor::detail
