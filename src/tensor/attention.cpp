// Scaled dot-product attention with grouped-query heads, one query row at a time: scores
// against the visible keys, softmax, weighted sum of values. Work is split over
// (head, block of query rows).
#include <algorithm>
#include <cmath>
#include <vector>

#include "meadow/error.hpp"
#include "tensor/ops.hpp"
#include "tensor/parallel.hpp"
#include "tensor/simd_kernels.hpp"

namespace meadow::tensor {

void attention(const float* q, int64_t n_q, int64_t q0, const float* k, const float* v,
               int64_t n_kv, int64_t n_head, int64_t n_head_kv, int64_t hd, AttnMask mask,
               float* out, Threads th) {
  if (n_head_kv <= 0 || n_head % n_head_kv != 0) {
    throw Error("attention: n_head must be a multiple of n_head_kv");
  }
  if (n_q <= 0 || n_head <= 0) return;
  const int64_t group = n_head / n_head_kv;
  const float scale = 1.0f / std::sqrt(float(hd));
  const int64_t q_stride = n_head * hd, kv_stride = n_head_kv * hd;
  const int64_t q_block = 16;
  const int64_t blocks = (n_q + q_block - 1) / q_block;

  detail::parallel_for(n_head * blocks, 1, th.n, [&](int64_t b, int64_t e, int) {
    std::vector<float> scores(size_t(std::max<int64_t>(n_kv, 1)));
    for (int64_t task = b; task < e; ++task) {
      const int64_t h = task / blocks, g = h / group;
      const int64_t t_end = std::min(n_q, (task % blocks + 1) * q_block);
      for (int64_t t = (task % blocks) * q_block; t < t_end; ++t) {
        const float* qr = q + t * q_stride + h * hd;
        float* o = out + t * q_stride + h * hd;
        const int64_t visible =
            mask == AttnMask::Causal ? std::clamp<int64_t>(q0 + t + 1, 0, n_kv) : n_kv;
        std::fill(o, o + hd, 0.0f);
        if (visible == 0) continue;
        for (int64_t j = 0; j < visible; ++j) {
          scores[size_t(j)] = scale * detail::dot_f32(qr, k + j * kv_stride + g * hd, hd);
        }
        softmax(scores.data(), visible);
        for (int64_t j = 0; j < visible; ++j) {
          detail::axpy_f32(scores[size_t(j)], v + j * kv_stride + g * hd, o, hd);
        }
      }
    }
  });
}

}  // namespace meadow::tensor
