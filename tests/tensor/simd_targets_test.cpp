// Every SIMD target compiled into the binary that this CPU can run (e.g. AVX-512, AVX2, SSE4,
// scalar) computes the same products: users' CPUs may only reach the lesser paths.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <cmath>
#include <string>
#include <vector>

#include "reference.hpp"
#include "tensor/ops.hpp"
#include "tensor/simd_kernels.hpp"

namespace meadow::tensor {
namespace {

struct RestoreTargets {
  ~RestoreTargets() { hwy::SetSupportedTargetsForTest(0); }
};

TEST(SimdTargets, EveryTargetMatchesReference) {
  const int64_t rows = 9, cols = 512;
  const gguf::TensorType types[] = {gguf::TensorType::F16,  gguf::TensorType::BF16,
                                    gguf::TensorType::Q8_0, gguf::TensorType::Q4_0,
                                    gguf::TensorType::Q4_K, gguf::TensorType::Q6_K};
  RestoreTargets restore;
  const auto targets = hwy::SupportedAndGeneratedTargets();
  ASSERT_FALSE(targets.empty());
  for (int64_t target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    ASSERT_EQ(std::string(detail::simd_target_name()), hwy::TargetName(target));
    for (auto type : types) {
      auto q = testing::make_weights(type, rows, cols, 77);
      for (int64_t n : {1, 8}) {  // dot-product path and decode + sgemm path
        const auto x = testing::random_floats(n * cols, 78);
        std::vector<float> y(static_cast<size_t>(n * rows), NAN);
        matmul(q.w, x.data(), n, y.data(), Threads{1}, MatmulPath::Float);
        const auto ref = testing::ref_matmul(q.dequant, rows, cols, x.data(), n);
        for (int64_t i = 0; i < n * rows; ++i) {
          const double tol =
              testing::dot_tolerance(q.dequant, i % rows, cols, x.data() + (i / rows) * cols);
          ASSERT_NEAR(y[i], ref[i], tol)
              << hwy::TargetName(target) << " " << gguf::type_name(type) << " n=" << n;
        }
      }
    }
    // Long enough for full vectors on every target, from deep negative to large positive.
    std::vector<float> g(37), u(37), out(37);
    for (size_t i = 0; i < g.size(); ++i) {
      g[i] = -30.0f + 1.2f * float(i);
      u[i] = 1.0f + 0.1f * float(i);
    }
    swiglu(g.data(), u.data(), out.data(), int64_t(g.size()));
    for (size_t i = 0; i < g.size(); ++i) {
      const double want = g[i] / (1.0 + std::exp(-double(g[i]))) * u[i];
      EXPECT_NEAR(out[i], want, 1e-5 * std::fabs(want) + 1e-7) << hwy::TargetName(target);
    }
  }
  std::printf("targets checked:");
  for (int64_t target : targets) std::printf(" %s", hwy::TargetName(target));
  std::printf("\n");
}

}  // namespace
}  // namespace meadow::tensor
