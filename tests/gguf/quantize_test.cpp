// Quantize -> dequantize round trips. The bounds follow from how the quantizer chooses scales
// (rounded up, so no element needs clamping) and rounds elements to the nearest level:
//   Q8_0: d >= amax/127, so |x/d| <= 127 and |err| <= d/2.
//   Q4_0: d = -(signed absmax)/8 rounded away from 0, so x/d lies in [-8, 8]; levels are
//         -8..7, so |err| <= |d|/2 where x/d <= 7.5 and <= |d| above (the clamped top).
//   Q4_K: sub-block j has step d*sc_j >= (max_j + m_j)/15 with m_j = dmin*lm_j >= -min_j, so
//         (x + m_j)/step lies in [0, 15] and |err| <= step/2.
//   Q6_K: like Q4_0 per 16-element sub-block with step d*sc_j and levels -32..31:
//         |err| <= |step|/2 where x/step <= 31.5 and <= |step| above.
// Steps are read back from the produced bytes with this file's own layout decoding. A small
// slack (a few float ulps of the block's largest magnitude) covers float rounding.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <tuple>
#include <vector>

#include "gguf_quantize.hpp"
#include "meadow/error.hpp"
#include "meadow/runtime/gguf.hpp"

namespace meadow::gguf {
namespace {

float half_at(const std::vector<uint8_t>& b, size_t at) {
  const uint16_t h = uint16_t(b[at] | (b[at + 1] << 8));
  const int e = (h >> 10) & 31, m = h & 1023;
  const float v = e == 0 ? std::ldexp(float(m), -24) : std::ldexp(float(1024 + m), e - 25);
  return (h & 0x8000) ? -v : v;
}

// Blocks with the awkward cases: random, zeros, constant, one outlier of either sign, all
// positive, all negative, tiny values (subnormal fp16 scales), large values.
std::vector<float> test_values(int64_t block) {
  std::mt19937 rng(1234);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> x;
  auto add_block = [&](auto f) {
    for (int64_t i = 0; i < block; ++i) x.push_back(f(i));
  };
  for (int r = 0; r < 8; ++r)
    add_block([&](int64_t) { return normal(rng) * float(1 << r) * 0.1f; });
  add_block([](int64_t) { return 0.0f; });
  add_block([](int64_t) { return 0.75f; });
  add_block([&](int64_t i) { return i == 5 ? 40.0f : normal(rng) * 0.01f; });
  add_block([&](int64_t i) { return i == 7 ? -40.0f : normal(rng) * 0.01f; });
  add_block([&](int64_t) { return std::fabs(normal(rng)) + 2.0f; });
  add_block([&](int64_t) { return -std::fabs(normal(rng)) - 2.0f; });
  add_block([&](int64_t) { return normal(rng) * 1e-6f; });
  add_block([&](int64_t) { return normal(rng) * 1000.0f; });
  add_block([&](int64_t i) { return float(i % 16) - 8.0f; });
  return x;
}

float slack(const float* x, int n) {
  float m = 0;
  for (int i = 0; i < n; ++i) m = std::max(m, std::fabs(x[i]));
  return m * 4e-7f + 1e-30f;
}

std::vector<float> round_trip(TensorType t, const std::vector<float>& x, std::vector<uint8_t>& q) {
  q = quantize(t, x.data(), int64_t(x.size()));
  EXPECT_EQ(q.size(), row_bytes(t, x.size()));
  std::vector<float> y(x.size());
  dequantize(t, q.data(), y.data(), int64_t(y.size()));
  return y;
}

TEST(GgufQuantize, Q8_0WithinHalfStep) {
  const auto x = test_values(32);
  std::vector<uint8_t> q;
  const auto y = round_trip(TensorType::Q8_0, x, q);
  for (size_t b = 0; b < x.size() / 32; ++b) {
    const float d = half_at(q, 34 * b);
    float amax = 0;
    for (int j = 0; j < 32; ++j) amax = std::max(amax, std::fabs(x[32 * b + j]));
    EXPECT_GE(d * 127, amax) << "block " << b;  // the usual scale, rounded up to fp16
    if (amax > 1e-3f) {
      EXPECT_LE(d * 127, amax * (1 + 0x1p-10f)) << "block " << b;
    }
    for (int j = 0; j < 32; ++j) {
      const size_t i = 32 * b + j;
      ASSERT_LE(std::fabs(y[i] - x[i]), d / 2 + slack(&x[32 * b], 32)) << i;
    }
  }
}

// Q4_0 / Q5_0: within half a step, except the elements above the top level (x / d past 7.5 or
// 15.5), clamped to it: within a whole step.
TEST(GgufQuantize, Q4_0AndQ5_0WithinHalfStepExceptClampedTop) {
  for (auto [t, bytes, top] :
       {std::tuple{TensorType::Q4_0, 18, 7.5f}, {TensorType::Q5_0, 22, 15.5f}}) {
    SCOPED_TRACE(type_name(t));
    const auto x = test_values(32);
    std::vector<uint8_t> q;
    const auto y = round_trip(t, x, q);
    for (size_t b = 0; b < x.size() / 32; ++b) {
      const float d = half_at(q, bytes * b);
      for (int j = 0; j < 32; ++j) {
        const size_t i = 32 * b + j;
        const float bound = (d != 0 && x[i] / d > top) ? std::fabs(d) : std::fabs(d) / 2;
        ASSERT_LE(std::fabs(y[i] - x[i]), bound + slack(&x[32 * b], 32)) << i;
      }
    }
  }
}

// Q4_1 / Q5_1: m rounded down and d rounded up, so [min, max] is covered and no element is
// clamped: every error is within half a step.
TEST(GgufQuantize, Q4_1AndQ5_1WithinHalfStep) {
  for (auto [t, bytes] : {std::pair{TensorType::Q4_1, 20}, {TensorType::Q5_1, 24}}) {
    SCOPED_TRACE(type_name(t));
    const auto x = test_values(32);
    std::vector<uint8_t> q;
    const auto y = round_trip(t, x, q);
    for (size_t b = 0; b < x.size() / 32; ++b) {
      const float d = half_at(q, bytes * b);
      const float m = half_at(q, bytes * b + 2);
      float lo = x[32 * b];
      for (int j = 0; j < 32; ++j) lo = std::min(lo, x[32 * b + j]);
      EXPECT_LE(m, lo) << "block " << b;
      for (int j = 0; j < 32; ++j) {
        const size_t i = 32 * b + j;
        ASSERT_LE(std::fabs(y[i] - x[i]), d / 2 + slack(&x[32 * b], 32)) << i;
      }
    }
  }
}

// Q4_K / Q5_K (blocks of `block_bytes`: fp16 d, fp16 dmin, 12 bytes of scales, then the
// quants): every element within half a step of its 32-element sub-block, the step being d times
// the sub-block's 6-bit scale.
void expect_k_quant_within_half_step(TensorType t, size_t block_bytes) {
  SCOPED_TRACE(type_name(t));
  const auto x = test_values(256);
  std::vector<uint8_t> q;
  const auto y = round_trip(t, x, q);
  for (size_t b = 0; b < x.size() / 256; ++b) {
    const float d = half_at(q, block_bytes * b);
    const uint8_t* s = q.data() + block_bytes * b + 4;
    for (int j = 0; j < 8; ++j) {
      // 6-bit scale of sub-block j (low bits in bytes 0..3 or 8..11, top bits of j >= 4 in
      // bytes 0..3).
      const int sc = j < 4 ? (s[j] & 63) : ((s[j + 4] & 15) | ((s[j - 4] >> 6) << 4));
      const float step = d * float(sc);
      for (int l = 0; l < 32; ++l) {
        const size_t i = 256 * b + 32 * j + l;
        ASSERT_LE(std::fabs(y[i] - x[i]), step / 2 + slack(&x[256 * b], 256))
            << "block " << b << " sub-block " << j << " element " << l;
      }
    }
  }
}

TEST(GgufQuantize, Q5_KAndQ8_KWithinHalfStep) {
  expect_k_quant_within_half_step(TensorType::Q5_K, 176);
  const auto x = test_values(256);
  std::vector<uint8_t> q;
  const auto y8 = round_trip(TensorType::Q8_K, x, q);
  for (size_t b = 0; b < x.size() / 256; ++b) {
    float d;
    std::memcpy(&d, q.data() + 292 * b, 4);
    int16_t sum0;
    std::memcpy(&sum0, q.data() + 292 * b + 260, 2);
    int want = 0;
    for (int l = 0; l < 16; ++l) want += int8_t(q[292 * b + 4 + l]);
    EXPECT_EQ(sum0, want) << "bsums[0] of block " << b;
    for (int j = 0; j < 256; ++j) {
      const size_t i = 256 * b + j;
      ASSERT_LE(std::fabs(y8[i] - x[i]), d / 2 + slack(&x[256 * b], 256)) << i;
    }
  }
}

TEST(GgufQuantize, Q4_KWithinHalfStep) {
  expect_k_quant_within_half_step(TensorType::Q4_K, 144);
}

TEST(GgufQuantize, Q6_KWithinHalfStepExceptClampedTop) {
  const auto x = test_values(256);
  std::vector<uint8_t> q;
  const auto y = round_trip(TensorType::Q6_K, x, q);
  for (size_t b = 0; b < x.size() / 256; ++b) {
    const float d = half_at(q, 210 * b + 208);
    for (int j = 0; j < 16; ++j) {
      const float step = d * float(int8_t(q[210 * b + 192 + j]));
      for (int l = 0; l < 16; ++l) {
        const size_t i = 256 * b + 16 * j + l;
        const float bound =
            (step != 0 && x[i] / step > 31.5f) ? std::fabs(step) : std::fabs(step) / 2;
        ASSERT_LE(std::fabs(y[i] - x[i]), bound + slack(&x[256 * b], 256))
            << "block " << b << " sub-block " << j << " element " << l;
      }
    }
  }
}

TEST(GgufQuantize, FloatTypesWithinHalfUlp) {
  const auto x = test_values(32);
  std::vector<uint8_t> q;
  const auto y32 = round_trip(TensorType::F32, x, q);
  EXPECT_EQ(y32, x);
  const auto y16 = round_trip(TensorType::F16, x, q);
  const auto yb = round_trip(TensorType::BF16, x, q);
  for (size_t i = 0; i < x.size(); ++i) {
    // Relative half-ulp: 2^-11 for 10 fraction bits, 2^-8 for 7; below 2^-14 half steps
    // are the fixed subnormal spacing 2^-24.
    ASSERT_LE(std::fabs(y16[i] - x[i]), std::max(std::fabs(x[i]) * 0x1p-11f, 0x1p-25f)) << i;
    ASSERT_LE(std::fabs(yb[i] - x[i]), std::fabs(x[i]) * 0x1p-8f) << i;
  }
}

TEST(GgufQuantize, ValuesOnTheGridSurvive) {
  // With amax = 127 * 2^-1 the Q8_0 scale is exactly 0.5, so k/2 for |k| <= 127 is a level; with
  // a block minimum of -8 * 2^-1 the Q4_0 scale is 0.5 and k/2 for -8 <= k <= 7 is a level.
  std::vector<float> x8(64), x4(64);
  for (int i = 0; i < 64; ++i) {
    x8[i] = i % 32 == 0 ? 63.5f : float((i * 37) % 255 - 127) * 0.5f;
    x4[i] = i % 32 == 0 ? -4.0f : float((i * 5) % 16 - 8) * 0.5f;
  }
  std::vector<uint8_t> q;
  EXPECT_EQ(round_trip(TensorType::Q8_0, x8, q), x8);
  EXPECT_EQ(half_at(q, 0), 0.5f);
  EXPECT_EQ(round_trip(TensorType::Q4_0, x4, q), x4);
  EXPECT_EQ(half_at(q, 0), 0.5f);
}

TEST(GgufQuantize, RejectsBadInput) {
  std::vector<float> x(32, 1.0f);
  x[3] = NAN;
  EXPECT_THROW(quantize(TensorType::Q8_0, x.data(), 32), Error);
  x[3] = INFINITY;
  EXPECT_THROW(quantize(TensorType::F16, x.data(), 32), Error);
  EXPECT_THROW(quantize(TensorType::Q4_K, x.data(), 32), Error);  // not a whole block
  std::vector<float> huge(32, 1e10f);
  EXPECT_THROW(quantize(TensorType::Q8_0, huge.data(), 32), Error);  // scale beyond fp16
}

}  // namespace
}  // namespace meadow::gguf
