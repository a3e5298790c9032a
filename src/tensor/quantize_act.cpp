// Activations to int8 per 32-value block with one float scale (the Q8_0 scheme), plus the
// per-lane scales and per-16 sums the integer kernels read (tensor/quant_dot.hpp).
#ifndef HWY_WANT_AVX3_DL
#define HWY_WANT_AVX3_DL 1  // as tensor/quant_dot.cpp: one target list for the integer path
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tensor/quantize_act.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "meadow/error.hpp"
#include "tensor/parallel.hpp"
#include "tensor/quant_dot.hpp"

HWY_BEFORE_NAMESPACE();
namespace meadow::tensor::detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// At most 16 lanes: a vector never spans two of the 16-value sums.
using DF = hn::CappedTag<float, 16>;

void QuantizeRow(const float* x, int64_t cols, int64_t span, int8_t* q, float* lane_scale,
                 float* sum16, float* block_d) {
  const DF df;
  const hn::Rebind<int32_t, DF> di;
  const hn::Rebind<int8_t, DF> d8;
  const int64_t N = int64_t(hn::Lanes(df));
  for (int64_t g0 = 0; g0 < cols; g0 += span) {  // one scale per span of whole blocks
    const int64_t g1 = std::min(cols, g0 + span);
    auto amax = hn::Zero(df);
    for (int64_t j = g0; j < g1; j += N) amax = hn::Max(amax, hn::Abs(hn::LoadU(df, x + j)));
    const float m = hn::GetLane(hn::MaxOfLanes(df, amax));
    const float d = m / 127.0f;
    // Multiply by the inverse (one division per span); x * (127 / m) never exceeds 127.
    const auto inv = hn::Set(df, m > 0.0f ? 127.0f / m : 0.0f);
    for (int64_t b = g0 / 32; b < g1 / 32; ++b) {
      const float* xb = x + 32 * b;
      for (int64_t h = 0; h < 2; ++h) {  // two halves of 16: one scaled sum each
        auto acc = hn::Zero(di);
        for (int64_t j = 16 * h; j < 16 * h + 16; j += N) {
          const auto qi = hn::NearestInt(hn::Mul(hn::LoadU(df, xb + j), inv));
          acc = hn::Add(acc, qi);
          hn::StoreU(hn::DemoteTo(d8, qi), d8, q + 32 * b + j);
        }
        sum16[2 * b + h] = d * float(hn::GetLane(hn::SumOfLanes(di, acc)));
      }
      std::fill_n(lane_scale + 8 * b, 8, d);
      block_d[b] = d;
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace meadow::tensor::detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace meadow::tensor::detail {

HWY_EXPORT(QuantizeRow);

namespace {

// Tokens [t0, t0 + g) of a into the grouped layout (their rows already quantized).
void group(QuantizedActs& a, int64_t t0, int64_t g) {
  const int64_t words = a.stride / 4, blocks = a.stride / 32;
  const auto* q = reinterpret_cast<const uint8_t*>(a.q.data());
  for (int64_t k = 0; k < g; ++k) {
    const int64_t t = t0 + k;
    int32_t* gq = a.gq.data() + t0 * words + k;
    for (int64_t i = 0; i < words; ++i) std::memcpy(gq + i * g, q + (t * words + i) * 4, 4);
    for (int64_t b = 0; b < blocks; ++b) {
      const size_t at = size_t(t0 * blocks + b * g + k);
      a.gd[at] = a.block_d[size_t(t * blocks + b)];
      a.gsa[at] = a.scaled_sum16[size_t(t * blocks * 2 + 2 * b)];
      a.gsb[at] = a.scaled_sum16[size_t(t * blocks * 2 + 2 * b + 1)];
      a.gsum[at] = a.gsa[at] + a.gsb[at];
    }
  }
}

}  // namespace

void quantize_acts(const float* x, int64_t n, int64_t cols, QuantizedActs& out, Threads th,
                   bool grouped, int64_t span) {
  if (span != 32 && span != 256) throw Error("quantize_acts: a span of 32 or 256 values");
  const int64_t stride = quant_stride(cols);
  out.span = span;
  out.n = n;
  out.cols = cols;
  out.stride = stride;
  out.grouped = grouped;
  // resize keeps the capacity (a warm call allocates nothing); each token's padding after
  // `cols` is zeroed with its row below, by whichever worker quantizes it.
  out.q.resize(size_t(n * stride));
  out.lane_scale.resize(size_t(n * stride / 4));
  out.scaled_sum16.resize(size_t(n * stride / 16));
  out.block_d.resize(size_t(n * stride / 32));
  if (grouped) {
    out.gq.resize(size_t(n * stride / 4));  // every element is written by group()
    for (auto* v : {&out.gd, &out.gsa, &out.gsb, &out.gsum}) v->resize(size_t(n * stride / 32));
  }
  // One group of tokens per task: the workers quantize and regroup disjoint tokens.
  parallel_for((n + kTokenGroup - 1) / kTokenGroup, 1, th, [&](int64_t b, int64_t e, int) {
    for (int64_t gi = b; gi < e; ++gi) {
      const int64_t t0 = gi * kTokenGroup, g = std::min(kTokenGroup, n - t0);
      for (int64_t t = t0; t < t0 + g; ++t) {
        int8_t* q = out.q.data() + t * stride;
        float* ls = out.lane_scale.data() + t * stride / 4;
        float* s16 = out.scaled_sum16.data() + t * stride / 16;
        float* bd = out.block_d.data() + t * stride / 32;
        std::fill(q + cols, q + stride, int8_t{0});
        std::fill(ls + cols / 4, ls + stride / 4, 0.0f);
        std::fill(s16 + cols / 16, s16 + stride / 16, 0.0f);
        std::fill(bd + cols / 32, bd + stride / 32, 0.0f);
        HWY_DYNAMIC_DISPATCH(QuantizeRow)(x + t * cols, cols, span, q, ls, s16, bd);
      }
      if (grouped) group(out, t0, g);
    }
  });
}

}  // namespace meadow::tensor::detail
#endif
