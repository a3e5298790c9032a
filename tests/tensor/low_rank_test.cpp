// add_low_rank (a LoRA pair's product added onto a matmul's output) against double loops, for
// one token and many.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "reference.hpp"
#include "tensor/ops.hpp"

namespace meadow::tensor {
namespace {

TEST(AddLowRank, AddsXATransposedBTransposed) {
  const int64_t rank = 5, rows = 37, cols = 48;
  const auto a = testing::random_floats(rank * cols, 1);
  const auto b = testing::random_floats(rows * rank, 2);
  for (int64_t n : {1, 3, 12}) {
    const auto x = testing::random_floats(n * cols, 3 + uint32_t(n));
    std::vector<float> y = testing::random_floats(n * rows, 9), scratch(size_t(n * rank));
    const std::vector<float> y0 = y;
    add_low_rank(a.data(), b.data(), rank, rows, cols, x.data(), n, y.data(), scratch.data());
    for (int64_t t = 0; t < n; ++t)
      for (int64_t o = 0; o < rows; ++o) {
        double want = y0[size_t(t * rows + o)];
        for (int64_t k = 0; k < rank; ++k) {
          double ax = 0;
          for (int64_t i = 0; i < cols; ++i)
            ax += double(a[size_t(k * cols + i)]) * double(x[size_t(t * cols + i)]);
          want += double(b[size_t(o * rank + k)]) * ax;
        }
        EXPECT_NEAR(y[size_t(t * rows + o)], want, 1e-4 * (1 + std::fabs(want)))
            << "n " << n << " row " << t << " out " << o;
      }
  }
}

}  // namespace
}  // namespace meadow::tensor
