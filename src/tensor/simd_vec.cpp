// Elementwise float32 vector kernels (axpy, SwiGLU, GELU, softmax), dispatched at run time.
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

// Abramowitz & Stegun 7.1.26: erfc(z) ~= t (a1 + t (a2 + t (a3 + t (a4 + t a5)))) exp(-z^2),
// t = 1 / (1 + p z), for z >= 0, with |error| < 1.5e-7.
constexpr float kErfP = 0.3275911f, kErfA1 = 0.254829592f, kErfA2 = -0.284496736f,
                kErfA3 = 1.421413741f, kErfA4 = -1.453152027f, kErfA5 = 1.061405429f;
constexpr float kInvSqrt2 = 0.70710678118654752f;
// exp(-z^2) is clamped here: below exp(-80) Phi is 0 to float precision anyway.
constexpr float kMaxZ2 = 80.0f;

float GeluScalar(float x) {
  const float z = std::fabs(x) * kInvSqrt2;
  const float t = 1.0f / (1.0f + kErfP * z);
  const float poly = t * (kErfA1 + t * (kErfA2 + t * (kErfA3 + t * (kErfA4 + t * kErfA5))));
  const float erfc = poly * std::exp(-std::min(z * z, kMaxZ2));
  return x * (x >= 0.0f ? 1.0f - 0.5f * erfc : 0.5f * erfc);
}

void GeluF32(float* HWY_RESTRICT x, int64_t n) {
  const hn::ScalableTag<float> d;
  const int64_t N = int64_t(hn::Lanes(d));
  const auto p = hn::Set(d, kErfP), one = hn::Set(d, 1.0f), half = hn::Set(d, 0.5f);
  const auto a1 = hn::Set(d, kErfA1), a2 = hn::Set(d, kErfA2), a3 = hn::Set(d, kErfA3),
             a4 = hn::Set(d, kErfA4), a5 = hn::Set(d, kErfA5);
  const auto inv_sqrt2 = hn::Set(d, kInvSqrt2), max_z2 = hn::Set(d, kMaxZ2);
  int64_t i = 0;
  for (; i + N <= n; i += N) {
    const auto v = hn::LoadU(d, x + i);
    const auto z = hn::Mul(hn::Abs(v), inv_sqrt2);
    const auto t = hn::Div(one, hn::MulAdd(p, z, one));
    auto poly = hn::MulAdd(t, a5, a4);
    poly = hn::MulAdd(t, poly, a3);
    poly = hn::MulAdd(t, poly, a2);
    poly = hn::MulAdd(t, poly, a1);
    poly = hn::Mul(t, poly);
    const auto e = hn::CallExp(d, hn::Neg(hn::Min(hn::Mul(z, z), max_z2)));
    const auto tail = hn::Mul(half, hn::Mul(poly, e));  // Phi(-|x|)
    const auto phi = hn::IfThenElse(hn::Lt(v, hn::Zero(d)), tail, hn::Sub(one, tail));
    hn::StoreU(hn::Mul(v, phi), d, x + i);
  }
  for (; i < n; ++i) x[i] = GeluScalar(x[i]);
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
HWY_EXPORT(GeluF32);

void axpy_f32(float a, const float* x, float* y, int64_t n) {
  HWY_DYNAMIC_DISPATCH(AxpyF32)(a, x, y, n);
}
void scale_f32(float a, float* y, int64_t n) {
  HWY_DYNAMIC_DISPATCH(ScaleF32)(a, y, n);
}
void swiglu_f32(const float* gate, const float* up, float* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(SwigluF32)(gate, up, out, n);
}

void gelu_f32(float* x, int64_t n) {
  if (n > 0) HWY_DYNAMIC_DISPATCH(GeluF32)(x, n);
}

void softmax_f32(float* x, int64_t n) {
  if (n > 0) HWY_DYNAMIC_DISPATCH(SoftmaxF32)(x, n);
}

}  // namespace meadow::tensor::detail
#endif
