// Float32 weights times a few activation rows, read where they lie: 4 weight rows x 4
// activation rows per tile, 16 vector accumulators, no packing. OpenBLAS's sgemm packs the whole
// weight matrix on every call, which a product over 8-64 rows (a generation block, a decision's
// suffix) cannot amortize; this kernel streams each weight row once per 4 activation rows.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tensor/simd_tile_f32.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include <algorithm>

#include "tensor/simd_kernels.hpp"

HWY_BEFORE_NAMESPACE();
namespace meadow::tensor::detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;

// Up to 4 x 4 dot products of length `cols`: y[t * ldy + r] for r < nr rows (stride `cols`
// from w), t < nt activation rows (stride `cols` from x). The vector part runs on full
// vectors; the tail (cols % lanes) in scalar code.
template <int NR, int NT>
HWY_INLINE void Tile(const float* w, const float* x, int64_t cols, float* y, int64_t ldy) {
  const DF df;
  const int64_t N = int64_t(hn::Lanes(df));
  hn::Vec<DF> acc[NR][NT];
  for (int r = 0; r < NR; ++r)
    for (int t = 0; t < NT; ++t) acc[r][t] = hn::Zero(df);
  int64_t c = 0;
  for (; c + N <= cols; c += N) {
    hn::Vec<DF> xv[NT];
    for (int t = 0; t < NT; ++t) xv[t] = hn::LoadU(df, x + t * cols + c);
    for (int r = 0; r < NR; ++r) {
      const auto wv = hn::LoadU(df, w + r * cols + c);
      for (int t = 0; t < NT; ++t) acc[r][t] = hn::MulAdd(wv, xv[t], acc[r][t]);
    }
  }
  for (int r = 0; r < NR; ++r)
    for (int t = 0; t < NT; ++t) {
      float s = hn::GetLane(hn::SumOfLanes(df, acc[r][t]));
      for (int64_t k = c; k < cols; ++k) s += w[r * cols + k] * x[t * cols + k];
      y[t * ldy + r] = s;
    }
}

template <int NR>
HWY_INLINE void RowsTimesTokens(const float* w, const float* x, int64_t n, int64_t cols, float* y,
                                int64_t ldy) {
  int64_t t = 0;
  for (; t + 4 <= n; t += 4) Tile<NR, 4>(w, x + t * cols, cols, y + t * ldy, ldy);
  for (; t < n; ++t) Tile<NR, 1>(w, x + t * cols, cols, y + t * ldy, ldy);
}

void TileF32Impl(const float* w, int64_t j0, int64_t j1, int64_t cols, const float* x, int64_t n,
                 float* y, int64_t ldy) {
  int64_t j = j0;
  for (; j + 4 <= j1; j += 4) RowsTimesTokens<4>(w + j * cols, x, n, cols, y + j, ldy);
  for (; j < j1; ++j) RowsTimesTokens<1>(w + j * cols, x, n, cols, y + j, ldy);
}

}  // namespace HWY_NAMESPACE
}  // namespace meadow::tensor::detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace meadow::tensor::detail {

HWY_EXPORT(TileF32Impl);

void tile_rows_f32(const float* w, int64_t j0, int64_t j1, int64_t cols, const float* x, int64_t n,
                   float* y, int64_t ldy) {
  HWY_DYNAMIC_DISPATCH(TileF32Impl)(w, j0, j1, cols, x, n, y, ldy);
}

}  // namespace meadow::tensor::detail
#endif
