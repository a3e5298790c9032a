// rmsnorm, add_bias, swiglu, softmax against double loops.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "reference.hpp"
#include "tensor/ops.hpp"
#include "tensor/thread_pool.hpp"

namespace meadow::tensor {
namespace {

using testing::random_floats;

TEST(Elementwise, RmsnormMatchesDefinition) {
  const int64_t n = 3, d = 67;  // odd length exercises the SIMD tail
  const auto x = random_floats(n * d, 1, 3.0f);
  const auto g = random_floats(d, 2);
  std::vector<float> y(static_cast<size_t>(n * d));
  rmsnorm(x.data(), g.data(), y.data(), n, d, 1e-6f);
  for (int64_t t = 0; t < n; ++t) {
    double ss = 0;
    for (int64_t i = 0; i < d; ++i) ss += double(x[t * d + i]) * x[t * d + i];
    const double inv = 1.0 / std::sqrt(ss / d + 1e-6);
    for (int64_t i = 0; i < d; ++i) {
      const double want = x[t * d + i] * inv * g[i];
      ASSERT_NEAR(y[t * d + i], want, 1e-5 * std::fabs(want) + 1e-6);
    }
  }
}

TEST(Elementwise, AddBiasAddsToEveryRow) {
  const int64_t n = 2, d = 19;
  auto x = random_floats(n * d, 3);
  const auto x0 = x;
  const auto b = random_floats(d, 4);
  add_bias(x.data(), b.data(), n, d);
  for (int64_t t = 0; t < n; ++t)
    for (int64_t i = 0; i < d; ++i) ASSERT_FLOAT_EQ(x[t * d + i], x0[t * d + i] + b[i]);
}

// Split over threads (a pool and without one; sizes with a scalar tail), in place too: the
// same floats as one call.
TEST(Elementwise, SwigluOnThreadsEqualsOneCall) {
  ThreadPool pool(2);
  for (const int64_t n : {int64_t{30 * 1536}, int64_t{40000 + 7}, int64_t{100}}) {
    const auto gate = random_floats(n, 7, 4.0f);
    const auto up = random_floats(n, 8);
    std::vector<float> one(static_cast<size_t>(n)), two(static_cast<size_t>(n));
    swiglu(gate.data(), up.data(), one.data(), n);
    for (const Threads& th : {Threads{2}, Threads{2, &pool}, Threads{3, &pool}}) {
      swiglu(gate.data(), up.data(), two.data(), n, th);
      ASSERT_EQ(two, one) << n;
      auto in_place = gate;
      swiglu(in_place.data(), up.data(), in_place.data(), n, th);
      ASSERT_EQ(in_place, one) << n;
    }
  }
}

TEST(Elementwise, SwigluMatchesDefinitionIncludingExtremes) {
  auto gate = random_floats(101, 5, 4.0f);
  gate[0] = 100.0f;
  gate[1] = -100.0f;
  gate[2] = 0.0f;
  gate[3] = -20.0f;
  const auto up = random_floats(101, 6);
  std::vector<float> out(101);
  swiglu(gate.data(), up.data(), out.data(), 101);
  auto in_place = gate;  // the forward pass writes over the gate buffer
  swiglu(in_place.data(), up.data(), in_place.data(), 101);
  EXPECT_EQ(in_place, out);
  for (size_t i = 0; i < gate.size(); ++i) {
    const double g = gate[i];
    const double want = g / (1.0 + std::exp(-g)) * up[i];
    ASSERT_NEAR(out[i], want, 2e-6 * std::fabs(want) + 1e-7) << "i=" << i << " g=" << g;
  }
}

TEST(Elementwise, SoftmaxIsStableAndNormalised) {
  std::vector<float> x{1000.0f, 999.0f, -1000.0f, 998.5f};
  softmax(x.data(), int64_t(x.size()));
  const double e1 = std::exp(-1.0), e2 = std::exp(-1.5), z = 1 + e1 + e2;
  EXPECT_NEAR(x[0], 1 / z, 1e-6);
  EXPECT_NEAR(x[1], e1 / z, 1e-6);
  EXPECT_EQ(x[2], 0.0f);
  EXPECT_NEAR(x[3], e2 / z, 1e-6);
}

TEST(Elementwise, SoftmaxMatchesReferenceOnLongRows) {
  for (int64_t n : {1, 16, 37, 300}) {
    auto x = testing::random_floats(n, uint32_t(n), 8.0f);
    x[0] = -1e4f;  // underflows to exactly zero probability
    std::vector<double> want(x.begin(), x.end());
    double mx = -1e300, z = 0;
    for (double v : want) mx = std::max(mx, v);
    for (double& v : want) z += (v = std::exp(v - mx));
    softmax(x.data(), n);
    double total = 0;
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_NEAR(x[i], want[i] / z, 2e-6 * want[i] / z + 1e-9) << "n=" << n << " i=" << i;
      total += x[i];
    }
    EXPECT_NEAR(total, 1.0, 1e-5);
  }
}

}  // namespace
}  // namespace meadow::tensor
