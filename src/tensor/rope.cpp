// Rotary position embedding. Angles are computed in double: at positions in the thousands a
// float angle would already be off by ~1e-4 rad.
#include <cmath>

#include "meadow/error.hpp"
#include "tensor/ops.hpp"
#include "tensor/simd_kernels.hpp"
#include "tensor/small_buffer.hpp"

namespace meadow::tensor {

void rope_angles(const int32_t* pos, int64_t n_tokens, int64_t head_dim, float base, float* cos,
                 float* sin) {
  if (head_dim % 2 != 0) throw Error("rope: head_dim must be even");
  const int64_t half = head_dim / 2;
  detail::SmallBuffer<double, 256> inv_freq{static_cast<size_t>(half)};
  for (int64_t i = 0; i < half; ++i) {
    inv_freq[size_t(i)] = std::pow(double(base), -2.0 * double(i) / double(head_dim));
  }
  for (int64_t t = 0; t < n_tokens; ++t) {
    for (int64_t i = 0; i < half; ++i) {
      const double a = double(pos[t]) * inv_freq[size_t(i)];
      cos[t * half + i] = float(std::cos(a));
      sin[t * half + i] = float(std::sin(a));
    }
  }
}

void rope(float* x, int64_t n_tokens, int64_t n_heads, int64_t head_dim, const float* cos,
          const float* sin, RopeStyle style) {
  if (head_dim % 2 != 0) throw Error("rope: head_dim must be even");
  if (head_dim <= detail::kRopeMaxHeadDim)
    return detail::rope_f32(x, n_tokens, n_heads, head_dim, cos, sin, style == RopeStyle::Neox);
  const int64_t half = head_dim / 2;
  // Normal rotates (2i, 2i+1); Neox rotates (i, i + half).
  const int64_t stride = style == RopeStyle::Normal ? 2 : 1;
  const int64_t other = style == RopeStyle::Normal ? 1 : half;
  for (int64_t t = 0; t < n_tokens; ++t) {
    const float* cs = cos + t * half;
    const float* sn = sin + t * half;
    for (int64_t h = 0; h < n_heads; ++h) {
      float* v = x + (t * n_heads + h) * head_dim;
      for (int64_t i = 0; i < half; ++i) {
        float& a = v[i * stride];
        float& b = v[i * stride + other];
        const float a0 = a, b0 = b;
        a = a0 * cs[i] - b0 * sn[i];
        b = a0 * sn[i] + b0 * cs[i];
      }
    }
  }
}

}  // namespace meadow::tensor
