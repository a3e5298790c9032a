// Row-wise and elementwise kernels: RMSNorm, bias, SwiGLU, softmax.
#include <algorithm>
#include <cmath>

#include "tensor/ops.hpp"
#include "tensor/simd_kernels.hpp"

namespace meadow::tensor {

void rmsnorm(const float* x, const float* g, float* y, int64_t n, int64_t d, float eps) {
  for (int64_t t = 0; t < n; ++t) {
    const float* xr = x + t * d;
    float* yr = y + t * d;
    const double ss = detail::dot_f32(xr, xr, d);  // float lanes, summed per row
    const float inv = float(1.0 / std::sqrt(ss / double(d) + double(eps)));
    for (int64_t i = 0; i < d; ++i) yr[i] = xr[i] * inv * g[i];
  }
}

void add_bias(float* x, const float* b, int64_t n, int64_t d) {
  for (int64_t t = 0; t < n; ++t) detail::axpy_f32(1.0f, b, x + t * d, d);
}

void swiglu(const float* gate, const float* up, float* out, int64_t n) {
  detail::swiglu_f32(gate, up, out, n);
}

void softmax(float* x, int64_t n) {
  detail::softmax_f32(x, n);
}

}  // namespace meadow::tensor
