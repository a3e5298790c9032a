// matmul / matmul_rows / dequantize_row for every weight type against double loops over the
// gguf reference dequantization: the float path, exact up to float rounding. The integer
// path's bound is tested in quant_dot_test.cpp.
#include <gtest/gtest.h>

#include <hwy/targets.h>
#include <array>

#include <cmath>
#include <cstdio>
#include <vector>

#include "meadow/error.hpp"
#include "meadow/runtime/gguf.hpp"
#include "reference.hpp"
#include "tensor/ops.hpp"
#include "tensor/thread_pool.hpp"

namespace meadow::tensor {
namespace {

using gguf::TensorType;
using testing::make_weights;
using testing::random_floats;

class MatmulAllTypes : public ::testing::TestWithParam<TensorType> {};

// n = 1..3 takes the dot-product path, n >= 8 the panel + sgemm path.
TEST_P(MatmulAllTypes, MatchesReferenceForSmallAndLargeBatches) {
  const int64_t rows = 37, cols = 768;
  auto q = make_weights(GetParam(), rows, cols, 7);
  for (int64_t n : {1, 3, 8, 19}) {
    const auto x = random_floats(n * cols, 100 + uint32_t(n));
    std::vector<float> y(size_t(n * rows), NAN);
    matmul(q.w, x.data(), n, y.data(), Threads{2}, MatmulPath::Float);
    const auto ref = testing::ref_matmul(q.dequant, rows, cols, x.data(), n);
    for (int64_t t = 0; t < n; ++t)
      for (int64_t r = 0; r < rows; ++r) {
        const double tol = testing::dot_tolerance(q.dequant, r, cols, x.data() + t * cols);
        ASSERT_NEAR(y[t * rows + r], ref[t * rows + r], tol)
            << "n=" << n << " t=" << t << " r=" << r;
      }
  }
}

TEST_P(MatmulAllTypes, RowsSubsetMatchesFullProduct) {
  const int64_t rows = 50, cols = 512;
  auto q = make_weights(GetParam(), rows, cols, 11);
  const std::vector<int32_t> pick{49, 0, 17, 17, 3};
  const int64_t k = int64_t(pick.size());
  for (int64_t n : {1, 2, 9}) {
    const auto x = random_floats(n * cols, 5);
    std::vector<float> y(size_t(n * k), NAN);
    matmul_rows(q.w, pick.data(), k, x.data(), n, y.data(), Threads{2}, MatmulPath::Float);
    const auto ref = testing::ref_matmul(q.dequant, rows, cols, x.data(), n);
    for (int64_t t = 0; t < n; ++t)
      for (int64_t j = 0; j < k; ++j) {
        const double tol = testing::dot_tolerance(q.dequant, pick[j], cols, x.data() + t * cols);
        ASSERT_NEAR(y[t * k + j], ref[t * rows + pick[j]], tol) << "n=" << n << " j=" << j;
      }
  }
}

TEST_P(MatmulAllTypes, DequantizeRowEqualsFormatDecoding) {
  const int64_t rows = 5, cols = 512;
  auto q = make_weights(GetParam(), rows, cols, 3);
  std::vector<float> row(static_cast<size_t>(cols));
  for (int64_t r = 0; r < rows; ++r) {
    dequantize_row(q.w, r, row.data());
    for (int64_t c = 0; c < cols; ++c) {
      const float want = q.dequant[r * cols + c];
      ASSERT_NEAR(row[c], want, 1e-6f * std::fabs(want) + 1e-30f) << "r=" << r << " c=" << c;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Types, MatmulAllTypes,
                         ::testing::Values(TensorType::F32, TensorType::F16, TensorType::BF16,
                                           TensorType::Q8_0, TensorType::Q4_0, TensorType::Q4_1,
                                           TensorType::Q5_0, TensorType::Q5_1, TensorType::Q4_K,
                                           TensorType::Q5_K, TensorType::Q6_K, TensorType::Q8_K),
                         [](const auto& info) { return std::string(gguf::type_name(info.param)); });

// More rows than one decoded tile holds (tiles are bounded scratch), one thread and two.
TEST(Matmul, ManyPanelsAndThreadCounts) {
  const int64_t rows = 4200, cols = 256, n = 9;
  auto q = make_weights(TensorType::Q8_0, rows, cols, 21);
  const auto x = random_floats(n * cols, 22);
  const auto ref = testing::ref_matmul(q.dequant, rows, cols, x.data(), n);
  for (int threads : {1, 2}) {
    std::vector<float> y(size_t(n * rows), NAN);
    matmul(q.w, x.data(), n, y.data(), Threads{threads}, MatmulPath::Float);
    for (int64_t t = 0; t < n; ++t)
      for (int64_t r = 0; r < rows; ++r) {
        const double tol = testing::dot_tolerance(q.dequant, r, cols, x.data() + t * cols);
        ASSERT_NEAR(y[t * rows + r], ref[t * rows + r], tol) << "threads=" << threads;
      }
  }
}

// Float32 weights and 8-64 activation rows take the register-tile kernel: every row and token
// count around its 4 x 4 tiles (remainders in both), columns with a scalar tail, one thread
// and two, against the double reference; on every SIMD target compiled in.
TEST(Matmul, F32FewTokensTilesAnyShape) {
  struct RestoreTargets {
    ~RestoreTargets() { hwy::SetSupportedTargetsForTest(0); }
  } restore;
  std::printf("tile targets checked:");
  for (const int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    std::printf(" %s", hwy::TargetName(target));
    for (const int64_t cols : {192, 203}) {
      for (const int64_t rows : {4, 7, 61}) {
        auto q = make_weights(TensorType::F32, rows, cols, 41);
        for (const int64_t n : {8, 13, 64, 65}) {
          const auto x = random_floats(n * cols, 42);
          const auto ref = testing::ref_matmul(q.dequant, rows, cols, x.data(), n);
          for (int threads : {1, 2}) {
            std::vector<float> y(size_t(n * rows), NAN);
            matmul(q.w, x.data(), n, y.data(), Threads{threads});
            for (int64_t t = 0; t < n; ++t)
              for (int64_t r = 0; r < rows; ++r) {
                const double tol = testing::dot_tolerance(q.dequant, r, cols, x.data() + t * cols);
                ASSERT_NEAR(y[t * rows + r], ref[t * rows + r], tol)
                    << hwy::TargetName(target) << " cols=" << cols << " rows=" << rows << " n=" << n
                    << " t=" << t;
              }
          }
        }
      }
    }
  }
  std::printf("\n");
}

// Rows wider than one decoded column chunk are multiplied chunk by chunk and accumulated.
TEST(Matmul, WideRowsAccumulateOverColumnChunks) {
  const int64_t rows = 20, cols = 5120, n = 8;
  auto q = make_weights(TensorType::Q4_K, rows, cols, 31);
  const auto x = random_floats(n * cols, 32);
  const auto ref = testing::ref_matmul(q.dequant, rows, cols, x.data(), n);
  const std::vector<int32_t> pick{19, 2};
  std::vector<float> y(static_cast<size_t>(n * rows), NAN), ys(static_cast<size_t>(n * 2), NAN);
  matmul(q.w, x.data(), n, y.data(), Threads{2}, MatmulPath::Float);
  matmul_rows(q.w, pick.data(), 2, x.data(), n, ys.data(), Threads{2}, MatmulPath::Float);
  for (int64_t t = 0; t < n; ++t) {
    for (int64_t r = 0; r < rows; ++r) {
      const double tol = testing::dot_tolerance(q.dequant, r, cols, x.data() + t * cols);
      ASSERT_NEAR(y[t * rows + r], ref[t * rows + r], tol) << "t=" << t << " r=" << r;
    }
    for (int64_t j = 0; j < 2; ++j) {
      const double tol = testing::dot_tolerance(q.dequant, pick[j], cols, x.data() + t * cols);
      ASSERT_NEAR(ys[t * 2 + j], ref[t * rows + pick[j]], tol);
    }
  }
}

// Weights reading one input, multiplied together (one quantization, one parallel region), give
// each matmul's result to the bit: q/k/v-like shapes of mixed types on the integer path, a set
// with a float32 matrix (one matmul each), on a pool of 1 and 2 with reused integer buffers.
TEST(Matmul, SharedInputEqualsSeparateProducts) {
  const int64_t cols = 512;
  auto q = make_weights(TensorType::Q4_K, 512, cols, 51);
  auto k = make_weights(TensorType::Q6_K, 128, cols, 52);
  auto v = make_weights(TensorType::Q8_0, 80, cols, 53);  // 80: a partial panel
  auto f = make_weights(TensorType::F32, 64, cols, 54);
  // Packed weights (where this machine packs) read grouped activations at any token count,
  // also when the first matrix is not packed.
  auto p = make_weights(TensorType::Q4_1, 48, cols, 57);
  const PackedPages packed = pack_weights(p.w);
  p.w.packed = packed.get();
  auto q2 = make_weights(TensorType::Q4_K, 80, cols, 58);
  const std::array<const Weights*, 3> sets[] = {
      {&q.w, &q2.w, &q.w},  // Q4_K alone: one quantization, one scale per 256 values
      {&k.w, &v.w, &p.w},   // a packed matrix behind unpacked ones
      {&q.w, &k.w, &v.w},   // their activation spans differ: each quantizes its own
      {&q.w, &k.w, &f.w}};  // a float matrix among them
  for (int threads : {1, 2}) {
    ThreadPool pool(threads);
    const IntScratchArray ints = make_int_scratch(threads);
    const Threads th{threads, &pool, {}, MatmulPath::Auto, ints.get()};
    for (int64_t n : {1, 3, 4, 13, 40}) {
      const auto x = random_floats(n * cols, 55 + uint32_t(n));
      for (const auto& ws : sets) {
        std::vector<std::vector<float>> sep(3), shared(3);
        float* ys[3];
        for (int i = 0; i < 3; ++i) {
          shared[size_t(i)].assign(size_t(n * ws[i]->rows), NAN);
          ys[i] = shared[size_t(i)].data();
        }
        // The shared product first: the separate ones leave their activations in th's buffers.
        matmul_shared(ws, x.data(), n, ys, th);
        for (int i = 0; i < 3; ++i) {
          sep[size_t(i)].assign(size_t(n * ws[i]->rows), NAN);
          matmul(*ws[i], x.data(), n, sep[size_t(i)].data(), th);
        }
        for (int i = 0; i < 3; ++i)
          for (size_t j = 0; j < sep[size_t(i)].size(); ++j)
            ASSERT_EQ(shared[size_t(i)][j], sep[size_t(i)][j])
                << "threads " << threads << " n " << n << " matrix " << i << " at " << j;
      }
    }
  }
  std::vector<float> x(512), y(512);
  auto narrow = make_weights(TensorType::Q8_0, 4, 256, 56);
  const Weights* mixed[] = {&q.w, &narrow.w};
  float* two[] = {y.data(), y.data()};
  float* one[] = {y.data()};
  EXPECT_THROW(matmul_shared(mixed, x.data(), 1, two, Threads{1}), Error);  // widths differ
  EXPECT_THROW(matmul_shared(mixed, x.data(), 1, one, Threads{1}), Error);  // outputs missing
}

TEST(Matmul, RejectsBadShapesAndRows) {
  std::vector<uint8_t> bytes(34 * 4);
  Weights w{TensorType::Q8_0, bytes.data(), 2, 48};  // 48 is not a multiple of 32
  std::vector<float> x(48), y(2);
  EXPECT_THROW(matmul(w, x.data(), 1, y.data(), Threads{1}), Error);
  w.cols = 64;
  const int32_t bad = 2;
  EXPECT_THROW(matmul_rows(w, &bad, 1, x.data(), 1, y.data(), Threads{1}), Error);
  EXPECT_THROW(dequantize_row(w, -1, y.data()), Error);
}

TEST(Weights, OfTensorInfoChecksShape) {
  std::vector<uint8_t> bytes(2 * 34);
  gguf::TensorInfo t;
  t.name = "blk.0.attn_q.weight";
  t.type = TensorType::Q8_0;
  t.dims = {32, 2};
  t.data = bytes.data();
  t.nbytes = bytes.size();
  const Weights w = weights_of(t);
  EXPECT_EQ(w.rows, 2);
  EXPECT_EQ(w.cols, 32);
  t.dims = {32, 2, 2};
  EXPECT_THROW(weights_of(t), Error);
  t.dims = {32, 3};  // needs 3 blocks, has 2
  EXPECT_THROW(weights_of(t), Error);
  t.dims = {64};
  EXPECT_EQ(weights_of(t).rows, 1);
}

}  // namespace
}  // namespace meadow::tensor
