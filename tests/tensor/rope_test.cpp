// RoPE in both pair conventions against the rotation written out in double.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <cmath>
#include <vector>

#include "reference.hpp"
#include "tensor/ops.hpp"

namespace meadow::tensor {
namespace {

std::vector<double> ref_rope(const std::vector<float>& x, int64_t n_tok, int64_t n_head, int64_t hd,
                             const std::vector<int32_t>& pos, double base, RopeStyle style) {
  std::vector<double> y(x.begin(), x.end());
  for (int64_t t = 0; t < n_tok; ++t)
    for (int64_t h = 0; h < n_head; ++h)
      for (int64_t i = 0; i < hd / 2; ++i) {
        const double th = pos[t] * std::pow(base, -2.0 * i / hd);
        const int64_t a = style == RopeStyle::Normal ? 2 * i : i;
        const int64_t b = style == RopeStyle::Normal ? 2 * i + 1 : i + hd / 2;
        const int64_t o = (t * n_head + h) * hd;
        y[o + a] = x[o + a] * std::cos(th) - x[o + b] * std::sin(th);
        y[o + b] = x[o + a] * std::sin(th) + x[o + b] * std::cos(th);
      }
  return y;
}

// rope at positions pos, through the angle tables a pass computes once.
void rope_at(float* x, int64_t n_tok, int64_t n_head, int64_t hd, const std::vector<int32_t>& pos,
             RopeStyle style) {
  std::vector<float> cs(size_t(n_tok * hd / 2)), sn(cs.size());
  rope_angles(pos.data(), n_tok, hd, 10000.0f, cs.data(), sn.data());
  rope(x, n_tok, n_head, hd, cs.data(), sn.data(), style);
}

TEST(Rope, BothStylesMatchReference) {
  const int64_t n_tok = 4, n_head = 3, hd = 16;
  const std::vector<int32_t> pos{0, 1, 7, 3000};
  for (auto style : {RopeStyle::Normal, RopeStyle::Neox}) {
    auto x = testing::random_floats(n_tok * n_head * hd, 9);
    const auto want = ref_rope(x, n_tok, n_head, hd, pos, 10000.0, style);
    rope_at(x.data(), n_tok, n_head, hd, pos, style);
    for (size_t i = 0; i < x.size(); ++i) ASSERT_NEAR(x[i], want[i], 1e-5) << "i=" << i;
  }
}

// The rotation as float arithmetic, one pair at a time: what the vector kernels must give
// exactly, on every target, with vector tails (head_dim 36: halves of 18) and without.
TEST(Rope, EveryTargetGivesTheScalarFloats) {
  struct RestoreTargets {
    ~RestoreTargets() { hwy::SetSupportedTargetsForTest(0); }
  } restore;
  const int64_t n_tok = 3, n_head = 5;
  const std::vector<int32_t> pos{2, 90, 4000};
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    for (const int64_t hd : {64, 36, 6, 128})
      for (auto style : {RopeStyle::Normal, RopeStyle::Neox}) {
        const int64_t half = hd / 2;
        std::vector<float> cs(size_t(n_tok * half)), sn(cs.size());
        rope_angles(pos.data(), n_tok, hd, 10000.0f, cs.data(), sn.data());
        auto x = testing::random_floats(n_tok * n_head * hd, 13);
        auto want = x;
        for (int64_t t = 0; t < n_tok; ++t)
          for (int64_t h = 0; h < n_head; ++h)
            for (int64_t i = 0; i < half; ++i) {
              float* v = want.data() + (t * n_head + h) * hd;
              float& a = v[style == RopeStyle::Normal ? 2 * i : i];
              float& b = v[style == RopeStyle::Normal ? 2 * i + 1 : i + half];
              const float a0 = a, b0 = b, c = cs[size_t(t * half + i)],
                          s = sn[size_t(t * half + i)];
              a = a0 * c - b0 * s;
              b = a0 * s + b0 * c;
            }
        rope(x.data(), n_tok, n_head, hd, cs.data(), sn.data(), style);
        ASSERT_EQ(x, want) << hwy::TargetName(target) << " hd " << hd;
      }
  }
}

TEST(Rope, StylesDifferAndPositionZeroIsIdentity) {
  const int64_t hd = 8;
  const std::vector<int32_t> pos{0, 5};
  auto a = testing::random_floats(2 * hd, 2);
  auto b = a;
  const auto x0 = a;
  rope_at(a.data(), 2, 1, hd, pos, RopeStyle::Normal);
  rope_at(b.data(), 2, 1, hd, pos, RopeStyle::Neox);
  for (int64_t i = 0; i < hd; ++i) {
    EXPECT_FLOAT_EQ(a[i], x0[i]);
    EXPECT_FLOAT_EQ(b[i], x0[i]);
  }
  double diff = 0;
  for (int64_t i = hd; i < 2 * hd; ++i) diff += std::fabs(a[i] - b[i]);
  EXPECT_GT(diff, 1e-3);
}

}  // namespace
}  // namespace meadow::tensor
