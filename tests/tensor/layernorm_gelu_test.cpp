// layernorm and gelu (the BERT encoder's kernels) against double loops.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "reference.hpp"
#include "tensor/ops.hpp"
#include "tensor/thread_pool.hpp"

namespace meadow::tensor {
namespace {

using testing::random_floats;

TEST(LayerNorm, MatchesDefinitionInPlaceToo) {
  const int64_t n = 3, d = 67;
  auto x = random_floats(n * d, 11, 3.0f);
  for (auto& v : x) v += 100.0f;  // a large mean against a small spread
  const auto g = random_floats(d, 12), b = random_floats(d, 13);
  std::vector<float> y(size_t(n * d));
  layernorm(x.data(), g.data(), b.data(), y.data(), n, d, 1e-12f);
  for (int64_t t = 0; t < n; ++t) {
    double mean = 0, var = 0;
    for (int64_t i = 0; i < d; ++i) mean += x[size_t(t * d + i)];
    mean /= double(d);
    for (int64_t i = 0; i < d; ++i) var += std::pow(x[size_t(t * d + i)] - mean, 2);
    var /= double(d);
    for (int64_t i = 0; i < d; ++i) {
      const double want =
          (x[size_t(t * d + i)] - mean) / std::sqrt(var + 1e-12) * g[size_t(i)] + b[size_t(i)];
      ASSERT_NEAR(y[size_t(t * d + i)], want, 1e-5 * std::fabs(want) + 1e-6) << t << " " << i;
    }
  }
  auto in_place = x;
  layernorm(in_place.data(), g.data(), b.data(), in_place.data(), n, d, 1e-12f);
  EXPECT_EQ(in_place, y);
}

TEST(LayerNorm, ConstantRowGivesTheBias) {
  const int64_t d = 8;
  const std::vector<float> x(size_t(d), 2.5f), g(size_t(d), 3.0f), b = random_floats(d, 14);
  std::vector<float> y(x.size());
  layernorm(x.data(), g.data(), b.data(), y.data(), 1, d, 1e-12f);
  for (int64_t i = 0; i < d; ++i) EXPECT_FLOAT_EQ(y[size_t(i)], b[size_t(i)]);
}

double gelu_exact(double x) {
  return 0.5 * x * std::erfc(-x / std::sqrt(2.0));
}

// Every value from -20 to 20 in steps of 1/64 (vector lanes and the scalar tail alike): within
// 2e-7 x max(1, |x|) of x * Phi(x) in double, and exactly 0 at 0.
TEST(Gelu, MatchesErfDefinition) {
  std::vector<float> x;
  for (int i = -20 * 64; i <= 20 * 64; ++i) x.push_back(float(i) / 64.0f);
  x.push_back(-1e30f);
  x.push_back(1e30f);
  auto y = x;
  gelu(y.data(), int64_t(y.size()), Threads{});
  for (size_t i = 0; i < x.size(); ++i) {
    const double want = gelu_exact(x[i]);
    ASSERT_NEAR(y[i], want, 2e-7 * std::max(1.0, std::fabs(double(x[i])))) << "x = " << x[i];
  }
  float zero = 0.0f;
  gelu(&zero, 1, Threads{});
  EXPECT_EQ(zero, 0.0f);
}

TEST(Gelu, OnThreadsEqualsOneCall) {
  ThreadPool pool(2);
  for (const int64_t n : {int64_t{64 * 1536}, int64_t{40000 + 7}, int64_t{100}}) {
    const auto x = random_floats(n, 15, 4.0f);
    auto one = x, split = x;
    gelu(one.data(), n, Threads{});
    gelu(split.data(), n, Threads{2, &pool});
    EXPECT_EQ(one, split) << n;
  }
}

}  // namespace
}  // namespace meadow::tensor
