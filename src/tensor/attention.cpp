// Scaled dot-product attention with grouped-query heads. Many query rows per K/V head go to the
// lane kernel (simd_attention.cpp: a K/V head's query rows in the vector lanes). Otherwise work
// is split over (head, block of query rows); each block is single-threaded sgemm calls (scores =
// Q·Kᵀ, out = P·V, one pair per key part) on strided views of the [tokens, heads, head_dim]
// layout, with a SIMD softmax in between.
#include <cblas.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "meadow/error.hpp"
#include "tensor/blas_core.hpp"
#include "tensor/ops.hpp"
#include "tensor/parallel.hpp"
#include "tensor/simd_kernels.hpp"

namespace meadow::tensor {
namespace {

// From this many query rows per K/V head (its query heads x the queries), the lane kernel
// (simd_attention.cpp) runs instead of sgemm per head: a SmolLM2 decision's attention (30
// queries x 3 heads per K/V head, 129 keys) takes 0.77-0.79x the time. One query of generation
// stays with sgemm (3 rows would fill 3 of 16 lanes).
constexpr int64_t kLaneMinRows = 16;
constexpr size_t kLaneMaxParts = 4;

// Keys query row t may see: [0, visible_keys(...)).
int64_t visible_keys(AttnMask mask, int64_t q0, int64_t t, int64_t n_kv) {
  return mask == AttnMask::Causal ? std::clamp<int64_t>(q0 + t + 1, 0, n_kv) : n_kv;
}

// Every worker's scratch grows to `floats` now, whichever tasks it gets: a caller that reuses
// the scratch allocates nothing on the next pass of the same size.
void grow_scratch(Threads th, size_t floats) {
  for (std::vector<float>& buf : th.scratch.first(std::min(th.scratch.size(), size_t(th.n))))
    if (buf.size() < floats) buf.resize(floats);
}

// A worker's scratch, or `own` without the caller's.
std::vector<float>& scratch_of(Threads th, int worker, std::vector<float>& own) {
  return size_t(worker) < th.scratch.size() ? th.scratch[size_t(worker)] : own;
}

// Tasks: a K/V head with its query heads over a block of queries, as many blocks as split the
// tasks evenly over the workers (a decision's 3 K/V heads would leave one of 2 idle a third of
// the time), each of at most 64 rows: the scores take no more memory than the sgemm path's.
void attention_lanes(const float* q, int64_t n_q, int64_t q0, std::span<const KvPart> kv,
                     int64_t n_kv, int64_t n_head, int64_t n_head_kv, int64_t hd, AttnMask mask,
                     float* out, Threads th) {
  const int64_t group = n_head / n_head_kv;
  const float scale = 1.0f / std::sqrt(float(hd));
  const int64_t q_stride = n_head * hd, kv_stride = n_head_kv * hd;
  const int64_t most = std::max<int64_t>(1, 64 / group);
  int64_t blocks = (n_q + most - 1) / most;
  while (blocks < n_q && (n_head_kv * blocks < 2 * th.n || n_head_kv * blocks % th.n != 0))
    ++blocks;
  const int64_t q_block = (n_q + blocks - 1) / blocks;
  blocks = (n_q + q_block - 1) / q_block;
  auto visible = [&](int64_t t) { return visible_keys(mask, q0, t, n_kv); };
  auto padded = [](int64_t rows) {
    return (rows + detail::kAttnRowAlign - 1) / detail::kAttnRowAlign * detail::kAttnRowAlign;
  };
  // Per task: the transposed queries [hd, ld], what each row sees and 1 / its sum [ld each],
  // the scores [keys, ld]. Grown now for the widest task: a reused scratch allocates nothing.
  auto need = [&](int64_t ld, int64_t keys) { return size_t(ld * (hd + 2 + keys)); };
  grow_scratch(th, need(padded(group * q_block), visible(n_q - 1)));
  detail::parallel_for(n_head_kv * blocks, 1, th, [&](int64_t b, int64_t e, int worker) {
    std::vector<float> own;
    std::vector<float>& p = scratch_of(th, worker, own);
    for (int64_t task = b; task < e; ++task) {
      const int64_t g = task / blocks;
      const int64_t t0 = (task % blocks) * q_block, t1 = std::min(n_q, t0 + q_block);
      const int64_t rows = (t1 - t0) * group, ld = padded(rows);  // r: query r / group
      float* o = out + t0 * q_stride + g * group * hd;
      const int64_t kv_len = visible(t1 - 1);  // the widest row of the block
      if (kv_len == 0) {
        for (int64_t t = t0; t < t1; ++t) std::fill_n(o + (t - t0) * q_stride, group * hd, 0.0f);
        continue;
      }
      if (p.size() < need(ld, kv_len)) p.resize(need(ld, kv_len));
      float *qt = p.data(), *vis = qt + hd * ld, *inv = vis + ld, *scores = inv + ld;
      for (int64_t r = 0; r < ld; ++r) {
        const float* src = q + (t0 + r / group) * q_stride + (g * group + r % group) * hd;
        for (int64_t d = 0; d < hd; ++d) qt[d * ld + r] = r < rows ? src[d] * scale : 0.0f;
        vis[r] = float(r < rows ? visible(t0 + r / group) : kv_len);
      }
      std::array<detail::AttnKv, kLaneMaxParts> runs;
      for (size_t i = 0; i < kv.size(); ++i)
        runs[i] = {kv[i].k + g * hd, kv[i].v + g * hd, kv[i].n};
      detail::attend_block_f32(qt, rows, ld, hd, runs.data(), int64_t(kv.size()), kv_stride, vis,
                               kv_len, scores, inv, {o, group, q_stride, hd});
    }
  });
}

}  // namespace

void attention(const float* q, int64_t n_q, int64_t q0, std::span<const KvPart> kv, int64_t n_head,
               int64_t n_head_kv, int64_t hd, AttnMask mask, float* out, Threads th) {
  if (n_head_kv <= 0 || n_head % n_head_kv != 0) {
    throw Error("attention: n_head must be a multiple of n_head_kv");
  }
  if (n_q <= 0 || n_head <= 0 || hd <= 0) return;
  int64_t n_kv = 0;
  for (const KvPart& part : kv) n_kv += part.n;
  const int64_t group = n_head / n_head_kv;
  if (hd % 4 == 0 && group * std::min<int64_t>(n_q, 64) >= kLaneMinRows &&
      kv.size() <= kLaneMaxParts)
    return attention_lanes(q, n_q, q0, kv, n_kv, n_head, n_head_kv, hd, mask, out, th);
  const float scale = 1.0f / std::sqrt(float(hd));
  const int64_t q_stride = n_head * hd, kv_stride = n_head_kv * hd;
  const int64_t q_block = 64;
  const int64_t blocks = (n_q + q_block - 1) / q_block;
  auto visible = [&](int64_t t) { return visible_keys(mask, q0, t, n_kv); };

  detail::set_blas_threads(1);  // our threads split the heads; BLAS runs inside each
  grow_scratch(th, size_t(std::min(q_block, n_q) * visible(n_q - 1)));  // the widest block
  detail::parallel_for(n_head * blocks, 1, th, [&](int64_t b, int64_t e, int worker) {
    std::vector<float> own;
    std::vector<float>& p = scratch_of(th, worker, own);
    for (int64_t task = b; task < e; ++task) {
      const int64_t h = task / blocks, g = h / group;
      const int64_t t0 = (task % blocks) * q_block, t1 = std::min(n_q, t0 + q_block);
      const int64_t m = t1 - t0;
      const int64_t kv_len = visible(t1 - 1);  // the widest row of the block
      float* o = out + t0 * q_stride + h * hd;
      if (kv_len == 0) {
        for (int64_t i = 0; i < m; ++i) std::fill(o + i * q_stride, o + i * q_stride + hd, 0.0f);
        continue;
      }
      if (p.size() < size_t(m * kv_len)) p.resize(size_t(m * kv_len));
      // Scores: each part's keys fill its own columns of p.
      int64_t col = 0;
      for (const KvPart& part : kv) {
        const int64_t cols = std::clamp<int64_t>(kv_len - col, 0, part.n);
        if (cols > 0)
          cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(m), int(cols), int(hd), scale,
                      q + t0 * q_stride + h * hd, int(q_stride), part.k + g * hd, int(kv_stride),
                      0.0f, p.data() + col, int(kv_len));
        col += part.n;
      }
      for (int64_t i = 0; i < m; ++i) {
        float* row = p.data() + i * kv_len;
        const int64_t vis = visible(t0 + i);
        if (vis > 0) detail::softmax_f32(row, vis);
        std::fill(row + vis, row + kv_len, 0.0f);  // masked keys (and rows that see none)
      }
      // Output: the first part's product, then each later part's added.
      col = 0;
      bool first = true;
      for (const KvPart& part : kv) {
        const int64_t cols = std::clamp<int64_t>(kv_len - col, 0, part.n);
        if (cols > 0) {
          cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(m), int(hd), int(cols), 1.0f,
                      p.data() + col, int(kv_len), part.v + g * hd, int(kv_stride),
                      first ? 0.0f : 1.0f, o, int(q_stride));
          first = false;
        }
        col += part.n;
      }
    }
  });
}

void attention(const float* q, int64_t n_q, int64_t q0, const float* k, const float* v,
               int64_t n_kv, int64_t n_head, int64_t n_head_kv, int64_t hd, AttnMask mask,
               float* out, Threads th) {
  const KvPart whole{k, v, n_kv};
  attention(q, n_q, q0, std::span(&whole, 1), n_head, n_head_kv, hd, mask, out, th);
}

}  // namespace meadow::tensor
