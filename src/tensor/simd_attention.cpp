// One block of attention rows (tensor/attention.cpp) with the rows in the vector lanes: the
// queries of a K/V head's query heads, transposed, so a key's score for 16 rows is one FMA per
// head dimension with the key's value broadcast, the softmax runs down the columns for 16 rows at
// once, and the weighted sum of values is one FMA per key and dimension again. No packing and no
// library call per head: a decision's 9 heads x 30 queries over 130 keys spent more in sgemm's
// small-matrix overheads and row-by-row softmax than in arithmetic.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tensor/simd_attention.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

// Per-target header: must come after foreach_target.h / highway.h.
#include "hwy/contrib/math/math-inl.h"

#include <algorithm>
#include <limits>

#include "tensor/simd_kernels.hpp"

HWY_BEFORE_NAMESPACE();
namespace meadow::tensor::detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::CappedTag<float, kAttnRowAlign>;  // ld is a multiple of the lanes

// The tile of row vectors starting at rv: rb vectors (2, or 1 at the end) and the keys any of
// its rows sees. Scores, softmax and values all cover these keys, so the weights past a row's
// own are written as zeros before they are read.
struct RowTile {
  int64_t rb, keys;
};
HWY_INLINE RowTile TileAt(const float* vis, int64_t ld, int64_t rv, int64_t N, int64_t kv_len) {
  const int64_t rb = rv + 2 * N <= ld ? 2 : 1;
  const float seen = *std::max_element(vis + rv, vis + rv + rb * N);
  return {rb, std::min(kv_len, int64_t(seen))};
}

// Scores of kb keys (at k, one per kv_stride) for rb row vectors from rv: s[j * ld + r].
template <int kb, int rb>
HWY_INLINE void ScoreTile(const float* qt, int64_t ld, int64_t hd, const float* k,
                          int64_t kv_stride, int64_t rv, float* s) {
  const DF df;
  const int64_t N = int64_t(hn::Lanes(df));
  hn::Vec<DF> acc[kb][rb];
  for (int i = 0; i < kb; ++i)
    for (int v = 0; v < rb; ++v) acc[i][v] = hn::Zero(df);
  for (int64_t d = 0; d < hd; ++d) {
    hn::Vec<DF> q[rb];
    for (int v = 0; v < rb; ++v) q[v] = hn::LoadU(df, qt + d * ld + rv + v * N);
    for (int i = 0; i < kb; ++i) {
      const auto key = hn::Set(df, k[i * kv_stride + d]);
      for (int v = 0; v < rb; ++v) acc[i][v] = hn::MulAdd(key, q[v], acc[i][v]);
    }
  }
  for (int i = 0; i < kb; ++i)
    for (int v = 0; v < rb; ++v) hn::StoreU(acc[i][v], df, s + i * ld + rv + v * N);
}

// Output dimensions [d0, d0 + 4) of rb row vectors from rv: sum over keys of weight x value,
// scaled by inv, written to each row's output (the lanes transposed back through a buffer).
template <int rb>
HWY_INLINE void ValueTile(const float* p, int64_t ld, const AttnKv* kv, int64_t n_runs,
                          int64_t kv_stride, int64_t keys, int64_t d0, int64_t rv, const float* inv,
                          int64_t rows, const AttnOut& out) {
  const DF df;
  const int64_t N = int64_t(hn::Lanes(df));
  hn::Vec<DF> acc[4][rb];
  for (int i = 0; i < 4; ++i)
    for (int v = 0; v < rb; ++v) acc[i][v] = hn::Zero(df);
  int64_t j = 0;  // key index over the runs
  for (int64_t run = 0; run < n_runs && j < keys; ++run) {
    const int64_t len = std::min(kv[run].n, keys - j);
    const float* vr = kv[run].v + d0;
    for (int64_t jl = 0; jl < len; ++jl, ++j) {
      hn::Vec<DF> w[rb];
      for (int v = 0; v < rb; ++v) w[v] = hn::LoadU(df, p + j * ld + rv + v * N);
      for (int i = 0; i < 4; ++i) {
        const auto val = hn::Set(df, vr[jl * kv_stride + i]);
        for (int v = 0; v < rb; ++v) acc[i][v] = hn::MulAdd(w[v], val, acc[i][v]);
      }
    }
  }
  HWY_ALIGN float lanes[4][kAttnRowAlign];
  for (int v = 0; v < rb; ++v) {
    const int64_t r0 = rv + v * N;
    const auto vinv = hn::LoadU(df, inv + r0);
    for (int i = 0; i < 4; ++i) hn::Store(hn::Mul(acc[i][v], vinv), df, lanes[i]);
    for (int64_t r = 0; r < N && r0 + r < rows; ++r) {
      float* o = out.at + (r0 + r) / out.group * out.row_stride + (r0 + r) % out.group * out.hd;
      for (int i = 0; i < 4; ++i) o[d0 + i] = lanes[i][r];
    }
  }
}

void AttendBlockImpl(const float* qt, int64_t rows, int64_t ld, int64_t hd, const AttnKv* kv,
                     int64_t n_runs, int64_t kv_stride, const float* vis, int64_t kv_len, float* p,
                     float* inv, const AttnOut& out) {
  const DF df;
  const int64_t N = int64_t(hn::Lanes(df));
  // Scores, key by key: p[j * ld + r], for the keys some row of the tile sees (the rest of a
  // column is masked below; under a causal mask that skips most of the block's own triangle).
  for (int64_t rv = 0; rv < ld;) {
    const auto [rb, keys] = TileAt(vis, ld, rv, N, kv_len);
    int64_t j = 0;
    for (int64_t run = 0; run < n_runs && j < keys; ++run) {
      const int64_t len = std::min(kv[run].n, keys - j);
      const float* k = kv[run].k;
      int64_t jl = 0;
      for (; jl + 4 <= len; jl += 4) {
        float* s = p + (j + jl) * ld;
        if (rb == 2) {
          ScoreTile<4, 2>(qt, ld, hd, k + jl * kv_stride, kv_stride, rv, s);
        } else {
          ScoreTile<4, 1>(qt, ld, hd, k + jl * kv_stride, kv_stride, rv, s);
        }
      }
      for (; jl < len; ++jl) {
        float* s = p + (j + jl) * ld;
        if (rb == 2) {
          ScoreTile<1, 2>(qt, ld, hd, k + jl * kv_stride, kv_stride, rv, s);
        } else {
          ScoreTile<1, 1>(qt, ld, hd, k + jl * kv_stride, kv_stride, rv, s);
        }
      }
      j += len;
    }
    rv += rb * N;
  }
  // Softmax down each column: row r sees keys [0, vis[r]); the others weigh 0, up to the keys
  // its tile reads.
  const auto neg_inf = hn::Set(df, -std::numeric_limits<float>::infinity());
  for (int64_t rv = 0; rv < ld; rv += N) {
    const int64_t keys = TileAt(vis, ld, rv / (2 * N) * (2 * N), N, kv_len).keys;
    const auto seen = hn::LoadU(df, vis + rv);
    const float first_masked = hn::GetLane(hn::MinOfLanes(df, seen));
    auto mx = neg_inf;
    for (int64_t i = 0; i < keys; ++i) {
      auto s = hn::LoadU(df, p + i * ld + rv);
      if (float(i) >= first_masked)
        s = hn::IfThenElse(hn::Lt(hn::Set(df, float(i)), seen), s, neg_inf);
      mx = hn::Max(mx, s);
    }
    auto sum = hn::Zero(df);
    for (int64_t i = 0; i < keys; ++i) {
      auto e = hn::CallExp(df, hn::Sub(hn::LoadU(df, p + i * ld + rv), mx));
      if (float(i) >= first_masked) e = hn::IfThenElseZero(hn::Lt(hn::Set(df, float(i)), seen), e);
      hn::StoreU(e, df, p + i * ld + rv);
      sum = hn::Add(sum, e);
    }
    hn::StoreU(hn::Div(hn::Set(df, 1.0f), sum), df, inv + rv);
  }
  // Weighted values, over the keys some row of the tile sees.
  for (int64_t rv = 0; rv < ld;) {
    const auto [rb, keys] = TileAt(vis, ld, rv, N, kv_len);
    for (int64_t d0 = 0; d0 < hd; d0 += 4) {
      if (rb == 2) {
        ValueTile<2>(p, ld, kv, n_runs, kv_stride, keys, d0, rv, inv, rows, out);
      } else {
        ValueTile<1>(p, ld, kv, n_runs, kv_stride, keys, d0, rv, inv, rows, out);
      }
    }
    rv += rb * N;
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace meadow::tensor::detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace meadow::tensor::detail {

HWY_EXPORT(AttendBlockImpl);

void attend_block_f32(const float* qt, int64_t rows, int64_t ld, int64_t hd, const AttnKv* kv,
                      int64_t n_runs, int64_t kv_stride, const float* vis, int64_t kv_len, float* p,
                      float* inv, const AttnOut& out) {
  HWY_DYNAMIC_DISPATCH(AttendBlockImpl)
  (qt, rows, ld, hd, kv, n_runs, kv_stride, vis, kv_len, p, inv, out);
}

}  // namespace meadow::tensor::detail
#endif
