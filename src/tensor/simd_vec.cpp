// Elementwise float32 vector kernels (axpy, SwiGLU, softmax), dispatched at run time.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tensor/simd_vec.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

// Per-target header: must come after foreach_target.h / highway.h.
#include "hwy/contrib/math/math-inl.h"

#include <algorithm>
#include <cmath>

#include "tensor/simd_kernels.hpp"

HWY_BEFORE_NAMESPACE();
namespace meadow::tensor::detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void AxpyF32(float a, const float* HWY_RESTRICT x, float* HWY_RESTRICT y, int64_t n) {
  const hn::ScalableTag<float> d;
  const int64_t N = int64_t(hn::Lanes(d));
  const auto va = hn::Set(d, a);
  int64_t i = 0;
  for (; i + N <= n; i += N) {
    hn::StoreU(hn::MulAdd(va, hn::LoadU(d, x + i), hn::LoadU(d, y + i)), d, y + i);
  }
  for (; i < n; ++i) y[i] += a * x[i];
}

void ScaleF32(float a, float* y, int64_t n) {
  const hn::ScalableTag<float> d;
  const int64_t N = int64_t(hn::Lanes(d));
  const auto va = hn::Set(d, a);
  int64_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(hn::Mul(va, hn::LoadU(d, y + i)), d, y + i);
  for (; i < n; ++i) y[i] *= a;
}

// out may be gate or up (each element is read before it is written).
void SwigluF32(const float* gate, const float* up, float* out, int64_t n) {
  const hn::ScalableTag<float> d;
  const int64_t N = int64_t(hn::Lanes(d));
  const auto one = hn::Set(d, 1.0f);
  // Clamp so exp(-g) stays finite; silu(g) is ~g (or ~0) well before the clamp matters.
  const auto lo = hn::Set(d, -80.0f), hi = hn::Set(d, 80.0f);
  int64_t i = 0;
  for (; i + N <= n; i += N) {
    const auto g = hn::LoadU(d, gate + i);
    const auto e = hn::CallExp(d, hn::Neg(hn::Min(hn::Max(g, lo), hi)));
    const auto silu = hn::Div(g, hn::Add(one, e));
    hn::StoreU(hn::Mul(silu, hn::LoadU(d, up + i)), d, out + i);
  }
  for (; i < n; ++i) out[i] = gate[i] / (1.0f + std::exp(-gate[i])) * up[i];
}

// In place: x = exp(x - max) / sum. Lanes beyond n are never touched.
void SoftmaxF32(float* HWY_RESTRICT x, int64_t n) {
  const hn::ScalableTag<float> d;
  const int64_t N = int64_t(hn::Lanes(d));
  float mx = x[0];
  int64_t i = 0;
  if (n >= N) {
    auto vmax = hn::LoadU(d, x);
    for (i = N; i + N <= n; i += N) vmax = hn::Max(vmax, hn::LoadU(d, x + i));
    mx = hn::GetLane(hn::MaxOfLanes(d, vmax));
  }
  for (; i < n; ++i) mx = std::max(mx, x[i]);
  const auto vm = hn::Set(d, mx);
  auto vsum = hn::Zero(d);
  for (i = 0; i + N <= n; i += N) {
    const auto e = hn::CallExp(d, hn::Sub(hn::LoadU(d, x + i), vm));
    hn::StoreU(e, d, x + i);
    vsum = hn::Add(vsum, e);
  }
  float sum = hn::GetLane(hn::SumOfLanes(d, vsum));
  for (; i < n; ++i) sum += (x[i] = std::exp(x[i] - mx));
  const float inv = 1.0f / sum;
  for (i = 0; i + N <= n; i += N)
    hn::StoreU(hn::Mul(hn::LoadU(d, x + i), hn::Set(d, inv)), d, x + i);
  for (; i < n; ++i) x[i] *= inv;
}

}  // namespace HWY_NAMESPACE
}  // namespace meadow::tensor::detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace meadow::tensor::detail {

HWY_EXPORT(AxpyF32);
HWY_EXPORT(ScaleF32);
HWY_EXPORT(SwigluF32);
HWY_EXPORT(SoftmaxF32);

void axpy_f32(float a, const float* x, float* y, int64_t n) {
  HWY_DYNAMIC_DISPATCH(AxpyF32)(a, x, y, n);
}
void scale_f32(float a, float* y, int64_t n) {
  HWY_DYNAMIC_DISPATCH(ScaleF32)(a, y, n);
}
void swiglu_f32(const float* gate, const float* up, float* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(SwigluF32)(gate, up, out, n);
}

void softmax_f32(float* x, int64_t n) {
  if (n > 0) HWY_DYNAMIC_DISPATCH(SoftmaxF32)(x, n);
}

}  // namespace meadow::tensor::detail
#endif
