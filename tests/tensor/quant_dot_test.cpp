// The integer matmul path (tensor/quant_dot.hpp) on every SIMD target this CPU runs,
// AVX-512 VNNI included: activations quantize exactly as a scalar reference does, the integer
// products equal a scalar reference exactly where float arithmetic is exact, and on random data
// the result stays within the bound that per-block int8 activations imply.
#ifndef HWY_WANT_AVX3_DL
#define HWY_WANT_AVX3_DL 1  // list the VNNI target too, as tensor/quant_dot.cpp compiles it
#endif
#include <gtest/gtest.h>
#include <hwy/targets.h>
#include <array>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "meadow/error.hpp"
#include "reference.hpp"
#include "tensor/ops.hpp"
#include "tensor/quant_dot.hpp"
#include "tensor/simd_kernels.hpp"

namespace meadow::tensor {
namespace {

using TT = gguf::TensorType;
const TT kTypes[] = {TT::Q4_0, TT::Q4_1, TT::Q4_K, TT::Q6_K, TT::Q8_0};

struct RestoreTargets {
  ~RestoreTargets() { hwy::SetSupportedTargetsForTest(0); }
};

// The activation quantizer, written plainly: per `span` values (32, or 256 for Q4_K weights:
// act_span) d = amax / 127, q = round(x / d) (as x * (127 / amax), to nearest even).
struct RefActs {
  std::vector<int> q;
  std::vector<float> d;  // per 32-value block (a span's blocks repeat its d)
};
RefActs ref_quantize(const float* x, int64_t n, int64_t cols, int64_t span = 32) {
  RefActs r;
  for (int64_t t = 0; t < n; ++t)
    for (int64_t g = 0; g < cols; g += span) {
      const float* xg = x + t * cols + g;
      const int64_t len = std::min(span, cols - g);
      float amax = 0;
      for (int64_t i = 0; i < len; ++i) amax = std::max(amax, std::fabs(xg[i]));
      const float inv = amax > 0 ? 127.0f / amax : 0.0f;
      for (int64_t b = 0; b < len / 32; ++b) r.d.push_back(amax / 127.0f);
      for (int64_t i = 0; i < len; ++i) r.q.push_back(int(std::nearbyint(xg[i] * inv)));
    }
  return r;
}

// sum_i w_i * d_b(i) * q_i in double, with w the format's reference decoding.
std::vector<double> ref_int_matmul(const std::vector<float>& w, int64_t rows, int64_t cols,
                                   const RefActs& a, int64_t n) {
  std::vector<double> y(size_t(n * rows));
  for (int64_t t = 0; t < n; ++t)
    for (int64_t r = 0; r < rows; ++r) {
      double s = 0;
      for (int64_t c = 0; c < cols; ++c) {
        const size_t i = size_t(t * cols + c);
        s += double(w[size_t(r * cols + c)]) * a.d[i / 32] * a.q[i];
      }
      y[size_t(t * rows + r)] = s;
    }
  return y;
}

// The bound of tensor/quant_dot.hpp for row r and token t, blocks of `span` values.
double act_error_bound(const std::vector<float>& w, int64_t r, int64_t cols, const float* x,
                       int64_t span) {
  double bound = 0;
  for (int64_t g = 0; g < cols; g += span) {
    double amax = 0, wsum = 0;
    for (int64_t i = g; i < std::min(cols, g + span); ++i) {
      amax = std::max(amax, std::fabs(double(x[i])));
      wsum += std::fabs(double(w[size_t(r * cols + i)]));
    }
    bound += amax / 254.0 * wsum;
  }
  return bound;
}

TEST(QuantDot, ActivationsMatchScalarQuantizer) {
  // 96: rows padded to the 64-byte stride; 1088: two chunks of 16 blocks (AVX-512 quantizes
  // those together) and two blocks more; 576 in spans of 256: a last span of 64 values.
  for (const auto [span, cols] : {std::array<int64_t, 2>{32, 96}, {32, 1088}, {256, 576}}) {
    const int64_t n = 3;
    auto x = testing::random_floats(n * cols, 5, 2.0f);
    for (int i = 32; i < 64; ++i) x[size_t(i)] = 0.0f;  // an all-zero block: d = 0 (span 32)
    if (span == 256)                                    // token 1's first span all zero
      for (int64_t i = cols; i < cols + 256; ++i) x[size_t(i)] = 0.0f;
    x[70] = 1e-30f;  // a tiny amax
    detail::QuantizedActs qa;
    detail::quantize_acts(x.data(), n, cols, qa, Threads{}, false, span);
    const RefActs ref = ref_quantize(x.data(), n, cols, span);
    ASSERT_EQ(qa.stride, (cols + 63) / 64 * 64);
    ASSERT_EQ(qa.span, span);
    for (int64_t t = 0; t < n; ++t) {
      for (int64_t c = 0; c < qa.stride; ++c) {
        const int8_t got = qa.q[size_t(t * qa.stride + c)];
        if (c >= cols) {
          ASSERT_EQ(got, 0) << "padding";
          ASSERT_EQ(qa.lane_scale[size_t((t * qa.stride + c) / 4)], 0.0f);
          continue;
        }
        const size_t i = size_t(t * cols + c);
        ASSERT_EQ(int(got), ref.q[i]) << span << " " << t << " " << c;
        ASSERT_LE(std::abs(ref.q[i]), 127);
        ASSERT_EQ(qa.lane_scale[size_t((t * qa.stride + c) / 4)], ref.d[i / 32]);
        // The rounding the bound rests on: |x - d q| <= d / 2 (plus one rounding of x * inv).
        ASSERT_LE(std::fabs(x[i] - ref.d[i / 32] * ref.q[i]), ref.d[i / 32] * 0.5001f + 1e-45f);
      }
      for (int64_t k = 0; k < cols / 16; ++k) {
        int sum = 0;
        for (int64_t c = 16 * k; c < 16 * k + 16; ++c) sum += ref.q[size_t(t * cols + c)];
        EXPECT_EQ(qa.scaled_sum16[size_t(t * qa.stride / 16 + k)],
                  ref.d[size_t((t * cols + 16 * k) / 32)] * float(sum));
      }
    }
  }
  detail::QuantizedActs qa;
  const std::vector<float> x(64, 1.0f);
  EXPECT_THROW(detail::quantize_acts(x.data(), 1, 64, qa, Threads{}, false, 64), Error);
}

// The panel kernel's layout holds every token's row as quantize_acts documents it: whole groups
// of 8 tokens (transposed 8 x 8 on AVX2 and up), a last smaller group, blocks past a multiple of
// 8; on every target.
TEST(QuantDot, GroupedLayoutHoldsTheRows) {
  RestoreTargets restore;
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    for (const int64_t cols : {96, 576, 1536})
      for (const int64_t n : {1, 3, 5, 8, 16, 21}) {
        const auto x = testing::random_floats(n * cols, 31, 3.0f);
        detail::QuantizedActs a;
        detail::quantize_acts(x.data(), n, cols, a, Threads{}, true);
        const int64_t words = a.stride / 4, blocks = a.stride / 32;
        for (int64_t t = 0; t < n; ++t) {
          const int64_t t0 = t / detail::kTokenGroup * detail::kTokenGroup, k = t - t0;
          const int64_t g = std::min(detail::kTokenGroup, n - t0);
          for (int64_t i = 0; i < words; ++i) {
            int32_t word;
            std::memcpy(&word, a.q.data() + t * a.stride + 4 * i, 4);
            ASSERT_EQ(a.gq[size_t(t0 * words + i * g + k)], word)
                << hwy::TargetName(target) << " cols " << cols << " n " << n << " t " << t;
          }
          for (int64_t b = 0; b < blocks; ++b) {
            const size_t at = size_t(t0 * blocks + b * g + k);
            const float sa = a.scaled_sum16[size_t(t * blocks * 2 + 2 * b)];
            const float sb = a.scaled_sum16[size_t(t * blocks * 2 + 2 * b + 1)];
            ASSERT_EQ(a.gd[at], a.block_d[size_t(t * blocks + b)]) << t << " " << b;
            ASSERT_EQ(a.gsa[at], sa);
            ASSERT_EQ(a.gsb[at], sb);
            ASSERT_EQ(a.gsum[at], sa + sb);
          }
        }
      }
  }
}

// fp16 bit patterns of small powers of two.
constexpr uint16_t kHalfPow2m4 = 0x2C00;     // 2^-4
constexpr uint16_t kHalfPow2m5 = 0x2800;     // 2^-5
constexpr uint16_t kHalfMinusHalf = 0xB800;  // -0.5

// Random quants with power-of-two block scales: every weight is a multiple of 2^-5 below 64.
std::vector<uint8_t> dyadic_weights(TT type, int64_t rows, int64_t cols, uint32_t seed) {
  std::mt19937 rng(seed);
  const int64_t bytes = rows * cols / gguf::block_elements(type) * gguf::block_bytes(type);
  std::vector<uint8_t> out(static_cast<size_t>(bytes), 0);
  for (auto& b : out) b = uint8_t(rng());
  const int64_t bb = gguf::block_bytes(type);
  for (int64_t off = 0; off < bytes; off += bb) {
    uint8_t* p = out.data() + off;
    auto put16 = [&](size_t at, uint16_t v) { std::memcpy(p + at, &v, 2); };
    switch (type) {
      case TT::Q4_0:
      case TT::Q8_0:
        put16(0, kHalfPow2m4);
        break;
      case TT::Q4_1:
        put16(0, kHalfPow2m4);
        put16(2, kHalfMinusHalf);
        break;
      case TT::Q4_K:
        put16(0, kHalfPow2m4);
        put16(2, kHalfPow2m5);
        break;
      case TT::Q6_K:  // int8 scales in [-16, 15]
        for (int k = 0; k < 16; ++k) p[192 + k] = uint8_t(int8_t(int(rng() % 32) - 16));
        put16(208, kHalfPow2m4);
        break;
      default:
        break;
    }
  }
  return out;
}

// x = k * 2^-7 with |k| <= 7, and one +-127 * 2^-7 per block: d = 2^-7 exactly, q = k.
std::vector<float> dyadic_acts(int64_t n, int64_t cols, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<float> x(size_t(n * cols));
  for (size_t i = 0; i < x.size(); ++i) {
    const int k = (i % 32 == rng() % 32) ? 0 : int(rng() % 15) - 7;
    x[i] = float(k) / 128.0f;
  }
  for (size_t b = 0; b < x.size() / 32; ++b)
    x[32 * b + (b * 7) % 32] = (b % 2 ? 127 : -127) / 128.0f;
  return x;
}

TEST(QuantDot, EveryTargetExactOnDyadicData) {
  RestoreTargets restore;
  const auto targets = hwy::SupportedAndGeneratedTargets();
  for (int64_t target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    ASSERT_EQ(std::string(detail::int_target_name()), hwy::TargetName(target));
    for (TT type : kTypes) {
      // 576 or 768 columns: a 512-column panel chunk and a shorter one; 1024: two whole
      // chunks. 5 rows: a partial panel (16 rows on AVX-512, 8 on AVX2, 4 on SSE).
      for (const int64_t cols : {gguf::block_elements(type) == 32 ? 576 : 768, 1024}) {
        const int64_t rows = 5;
        const auto bytes = dyadic_weights(type, rows, cols, 11);
        std::vector<float> w(size_t(rows * cols));
        gguf::dequantize(type, bytes.data(), w.data(), rows * cols);
        const Weights wt{type, bytes.data(), rows, cols};
        for (int64_t n : {1, 6}) {  // one token (few-token kernel); tiles of 4 and 2 tokens
          const auto x = dyadic_acts(n, cols, 12);
          const RefActs a = ref_quantize(x.data(), n, cols, detail::act_span(type));
          const auto ref = ref_int_matmul(w, rows, cols, a, n);
          std::vector<float> y(size_t(n * rows), NAN);
          matmul(wt, x.data(), n, y.data(), Threads{1}, MatmulPath::Integer);
          for (size_t i = 0; i < y.size(); ++i) {
            ASSERT_EQ(double(float(ref[i])), ref[i]) << "reference not exact in float";
            ASSERT_EQ(y[i], float(ref[i]))
                << hwy::TargetName(target) << " " << gguf::type_name(type) << " cols=" << cols
                << " n=" << n << " i=" << i;
          }
        }
      }
    }
  }
  std::printf("integer targets checked:");
  for (int64_t target : targets) std::printf(" %s", hwy::TargetName(target));
  std::printf("\n");
}

TEST(QuantDot, EveryTargetWithinActivationBound) {
  RestoreTargets restore;
  const auto targets = hwy::SupportedAndGeneratedTargets();
  for (int64_t target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    for (TT type : kTypes) {
      const int64_t rows = 9;
      const int64_t cols = gguf::block_elements(type) == 32 ? 480 : 512;  // 480: padded stride
      auto q = testing::make_weights(type, rows, cols, 21);
      double worst = 0;  // largest error / bound seen, printed: how tight the bound is
      for (int64_t n : {1, 3, 8, 13}) {
        auto x = testing::random_floats(n * cols, 22, 1.5f);
        x[7] = 40.0f;  // an outlier: its block's scale grows, the others' do not
        const int64_t span = detail::act_span(type);
        const RefActs a = ref_quantize(x.data(), n, cols, span);
        const auto exact = testing::ref_matmul(q.dequant, rows, cols, x.data(), n);
        const auto ref_int = ref_int_matmul(q.dequant, rows, cols, a, n);
        std::vector<float> yi(size_t(n * rows), NAN), yf(size_t(n * rows), NAN);
        matmul(q.w, x.data(), n, yi.data(), Threads{2}, MatmulPath::Integer);
        matmul(q.w, x.data(), n, yf.data(), Threads{2}, MatmulPath::Float);
        for (int64_t i = 0; i < n * rows; ++i) {
          const int64_t r = i % rows, t = i / rows;
          const float* xt = x.data() + t * cols;
          const double round = testing::dot_tolerance(q.dequant, r, cols, xt);
          const double bound = act_error_bound(q.dequant, r, cols, xt, span);
          const std::string where = std::string(hwy::TargetName(target)) + " " +
                                    gguf::type_name(type) + " n=" + std::to_string(n);
          // The integer products themselves: float rounding away from the scalar reference.
          ASSERT_NEAR(yi[size_t(i)], ref_int[size_t(i)], round) << where;
          // Against exact and float-path products: within the activation bound.
          ASSERT_NEAR(yi[size_t(i)], exact[size_t(i)], bound + round) << where;
          ASSERT_NEAR(yi[size_t(i)], yf[size_t(i)], bound + 2 * round) << where;
          worst = std::max(worst, std::fabs(yi[size_t(i)] - exact[size_t(i)]) / bound);
        }
      }
      EXPECT_GT(worst, 0.0) << "integer path gave float-exact results: was it used?";
      if (target == targets.front()) {
        std::printf("%s: largest |int - exact| / bound = %.3f\n", gguf::type_name(type), worst);
      }
    }
  }
}

// Packed panels hold the same numbers in another order: products equal the unpacked panel
// kernel's to the bit, on every target, for partial row groups and partial column chunks.
TEST(QuantDot, PackedPanelsEqualUnpacked) {
  RestoreTargets restore;
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    for (TT type : kTypes) {
      for (const int64_t cols : {gguf::block_elements(type) == 32 ? 576 : 768, 1280}) {
        const int64_t rows = 37;  // 2 whole groups of 16 and a partial one; on AVX2 of 8
        auto q = testing::make_weights(type, rows, cols, 51);
        const auto packed = pack_weights(q.w);
        const int64_t group = detail::packed_group_rows();
        if (group == 0 || (type != TT::Q4_0 && type != TT::Q4_1)) {  // not packed
          EXPECT_EQ(packed, nullptr) << hwy::TargetName(target) << " " << gguf::type_name(type);
          continue;
        }
        ASSERT_NE(packed, nullptr) << hwy::TargetName(target);
        const int64_t padded = (rows + group - 1) / group * group;
        EXPECT_EQ(detail::packed_bytes(q.w), padded * cols / 32 * gguf::block_bytes(type));
        Weights wp = q.w;
        wp.packed = packed.get();
        for (int64_t n : {1, 2, 3, 4, 9, 17}) {  // packed weights serve few tokens too
          const auto x = testing::random_floats(n * cols, 52, 1.5f);
          std::vector<float> y(size_t(n * rows), NAN), yp(size_t(n * rows), NAN);
          matmul(q.w, x.data(), n, y.data(), Threads{2}, MatmulPath::Integer);
          matmul(wp, x.data(), n, yp.data(), Threads{2}, MatmulPath::Integer);
          if (n >= detail::kPanelMinTokens) {  // the same kernel: the same sums
            EXPECT_EQ(yp, y) << hwy::TargetName(target) << " " << gguf::type_name(type)
                             << " cols=" << cols << " n=" << n;
          }
          for (size_t i = 0; i < y.size(); ++i) {  // few tokens: another summation order
            ASSERT_NEAR(yp[i], y[i],
                        testing::dot_tolerance(q.dequant, int64_t(i) % rows, cols,
                                               x.data() + int64_t(i) / rows * cols))
                << gguf::type_name(type) << " n=" << n;
          }
        }
      }
    }
  }
}

// The float path reads packed weights through decode_packed: the file's values to the bit,
// for any row range (whole groups or not) and column range, row-major or transposed.
TEST(QuantDot, PackedDecodeEqualsFileDecode) {
  RestoreTargets restore;
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    if (detail::packed_group_rows() == 0) continue;
    for (TT type : {TT::Q4_0, TT::Q4_1}) {
      const int64_t cols = 1280, rows = 37, e = 32;
      auto q = testing::make_weights(type, rows, cols, 61);
      const auto packed = pack_weights(q.w);
      Weights wp = q.w;
      wp.packed = packed.get();
      for (const auto [r0, nr, c0, nc] : {std::array<int64_t, 4>{0, rows, 0, cols},
                                          {3, 20, e, cols - 2 * e},
                                          {36, 1, 2 * e, e}}) {
        std::vector<float> a(size_t(nr * nc), NAN), b(size_t(nr * nc), NAN);
        detail::decode_rows(q.w, nullptr, r0, nr, c0, nc, a.data());
        detail::decode_rows(wp, nullptr, r0, nr, c0, nc, b.data());
        EXPECT_EQ(b, a) << hwy::TargetName(target) << " " << gguf::type_name(type) << " rows " << r0
                        << "+" << nr << " cols " << c0 << "+" << nc;
        std::vector<float> t(a.size(), NAN);  // transposed, as the float path's sgemm takes it
        detail::decode_packed(wp, r0, nr, c0, nc, t.data(), nr);
        for (int64_t r = 0; r < nr; ++r)
          for (int64_t c = 0; c < nc; ++c)
            ASSERT_EQ(t[size_t(c * nr + r)], a[size_t(r * nc + c)]) << r << " " << c;
      }
      // The float path: sgemm on the decoded tiles (taken transposed from packed weights, so
      // summed in another order), for few tokens too.
      for (int64_t n : {2, 9}) {
        const auto x = testing::random_floats(n * cols, 62);
        std::vector<float> y(size_t(n * rows)), yp(size_t(n * rows));
        matmul(q.w, x.data(), n, y.data(), Threads{2}, MatmulPath::Float);
        matmul(wp, x.data(), n, yp.data(), Threads{2}, MatmulPath::Float);
        for (size_t i = 0; i < y.size(); ++i) {
          ASSERT_NEAR(yp[i], y[i],
                      testing::dot_tolerance(q.dequant, int64_t(i) % rows, cols,
                                             x.data() + int64_t(i) / rows * cols))
              << gguf::type_name(type) << " n=" << n;
        }
      }
    }
  }
}

TEST(QuantDot, SameResultForAnyThreadCount) {  // each row is one task's, whole
  auto q = testing::make_weights(TT::Q6_K, 300, 512, 41);
  const auto x = testing::random_floats(11 * 512, 42);
  std::vector<float> y1(11 * 300), y(11 * 300);
  matmul(q.w, x.data(), 11, y1.data(), Threads{1}, MatmulPath::Integer);
  for (int threads : {2, 3, 5}) {
    matmul(q.w, x.data(), 11, y.data(), Threads{threads}, MatmulPath::Integer);
    EXPECT_EQ(y, y1) << threads;
  }
}

// Auto keeps the float path unless MEADOW_MATMUL=int opts in (exam decisions must not move).
// Auto multiplies in integers only where that measured faster: weights at least
// kIntegerMinCols wide, from 4 tokens (Q4_0, Q4_K and Q6_K also at fewer); narrower ones in
// float.
TEST(QuantDot, AutoTakesIntegersOnlyOnWideWeights) {
  if (std::getenv("MEADOW_MATMUL")) GTEST_SKIP() << "MEADOW_MATMUL is set";
  for (TT type : kTypes) {
    auto q = testing::make_weights(type, 16, 256, 51);
    const auto x = testing::random_floats(9 * 256, 52);
    std::vector<float> ya(9 * 16), yf(9 * 16);
    for (int64_t n : {1, 9}) {
      EXPECT_FALSE(takes_integer(q.w, n, MatmulPath::Auto)) << gguf::type_name(type);
      EXPECT_TRUE(takes_integer(q.w, n, MatmulPath::Integer)) << gguf::type_name(type);
      matmul(q.w, x.data(), n, ya.data(), Threads{1});
      matmul(q.w, x.data(), n, yf.data(), Threads{1}, MatmulPath::Float);
      EXPECT_EQ(ya, yf) << gguf::type_name(type) << " n=" << n;
    }
    auto wide = testing::make_weights(type, 4, kIntegerMinCols, 53);
    const bool small_batch_gains =
        type == TT::Q4_0 || type == TT::Q6_K ||
        (detail::direct_few_tokens() && (type == TT::Q4_1 || type == TT::Q4_K || type == TT::Q8_0));
    EXPECT_EQ(takes_integer(wide.w, 1, MatmulPath::Auto), small_batch_gains)
        << gguf::type_name(type);
    EXPECT_TRUE(takes_integer(wide.w, 4, MatmulPath::Auto)) << gguf::type_name(type);
    EXPECT_FALSE(takes_integer(wide.w, 4, MatmulPath::Float)) << gguf::type_name(type);
    // Threads::matmul is the path of calls that name none.
    const auto xw = testing::random_floats(4 * kIntegerMinCols, 54);
    std::vector<float> yt(4 * 4), yi(4 * 4), yfl(4 * 4);
    Threads th{1};
    th.matmul = MatmulPath::Float;
    matmul(wide.w, xw.data(), 4, yt.data(), th);
    matmul(wide.w, xw.data(), 4, yfl.data(), Threads{1}, MatmulPath::Float);
    matmul(wide.w, xw.data(), 4, yi.data(), Threads{1});
    EXPECT_EQ(yt, yfl) << gguf::type_name(type);
    EXPECT_NE(yi, yfl) << gguf::type_name(type) << ": Auto should have rounded in integers";
  }
  const std::vector<float> f32(4 * kIntegerMinCols, 0.5f);
  const Weights wf{TT::F32, f32.data(), 4, kIntegerMinCols};
  EXPECT_FALSE(takes_integer(wf, 8, MatmulPath::Integer));  // no integer kernels for F32
}

TEST(QuantDot, RowsSubsetMatchesFullMatmul) {
  auto q = testing::make_weights(TT::Q4_K, 20, 256, 31);
  const auto x = testing::random_floats(2 * 256, 32);
  std::vector<float> full(40), some(6);
  matmul(q.w, x.data(), 2, full.data(), Threads{1}, MatmulPath::Integer);
  const int32_t rows[3] = {19, 0, 7};
  matmul_rows(q.w, rows, 3, x.data(), 2, some.data(), Threads{1}, MatmulPath::Integer);
  for (int t = 0; t < 2; ++t)
    for (int j = 0; j < 3; ++j) EXPECT_EQ(some[size_t(t * 3 + j)], full[size_t(t * 20 + rows[j])]);
}

}  // namespace
}  // namespace meadow::tensor
