// Row-wise and elementwise kernels: RMSNorm, LayerNorm, bias, SwiGLU, GELU, softmax.
#include <algorithm>
#include <cmath>

#include "tensor/ops.hpp"
#include "tensor/parallel.hpp"
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

void layernorm(const float* x, const float* g, const float* b, float* y, int64_t n, int64_t d,
               float eps) {
  for (int64_t t = 0; t < n; ++t) {
    const float* xr = x + t * d;
    float* yr = y + t * d;
    double sum = 0;
    for (int64_t i = 0; i < d; ++i) sum += xr[i];
    const double mean = sum / double(d);
    double ss = 0;  // two passes: no cancellation when the mean is large against the spread
    for (int64_t i = 0; i < d; ++i) ss += (xr[i] - mean) * (xr[i] - mean);
    const double inv = 1.0 / std::sqrt(ss / double(d) + double(eps));
    for (int64_t i = 0; i < d; ++i) yr[i] = float((xr[i] - mean) * inv) * g[i] + b[i];
  }
}

void add_bias(float* x, const float* b, int64_t n, int64_t d) {
  for (int64_t t = 0; t < n; ++t) detail::axpy_f32(1.0f, b, x + t * d, d);
}

void swiglu(const float* gate, const float* up, float* out, int64_t n) {
  detail::swiglu_f32(gate, up, out, n);
}

void swiglu(const float* gate, const float* up, float* out, int64_t n, Threads th) {
  constexpr int64_t kMinPiece = 8192;  // below this a piece costs about what handing it out does
  if (th.n <= 1 || n < 2 * kMinPiece) return detail::swiglu_f32(gate, up, out, n);
  // Pieces start on multiples of 64 values: each keeps the vector lanes of the whole call, so
  // only the call's last values take the scalar tail, as without threads.
  const int64_t piece = (std::max(kMinPiece, (n + th.n - 1) / th.n) + 63) / 64 * 64;
  detail::parallel_for(n, piece, th, [&](int64_t b, int64_t e, int) {
    detail::swiglu_f32(gate + b, up + b, out + b, e - b);
  });
}

void gelu(float* x, int64_t n, Threads th) {
  constexpr int64_t kMinPiece = 8192;  // as swiglu: smaller pieces cost what handing out does
  if (th.n <= 1 || n < 2 * kMinPiece) return detail::gelu_f32(x, n);
  const int64_t piece = (std::max(kMinPiece, (n + th.n - 1) / th.n) + 63) / 64 * 64;
  detail::parallel_for(n, piece, th,
                       [&](int64_t b, int64_t e, int) { detail::gelu_f32(x + b, e - b); });
}

void softmax(float* x, int64_t n) {
  detail::softmax_f32(x, n);
}

}  // namespace meadow::tensor
