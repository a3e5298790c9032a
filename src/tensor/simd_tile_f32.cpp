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
#if HWY_TARGET <= HWY_AVX3
// The sum of a vector's 16 lanes by a fixed tree: lanes i and i + 8, then i and i + 4, i and
// i + 2, i and i + 1. Reduce16 adds every one of its 16 vectors by this same tree, so a dot
// product gives the same float whichever tile shape computed it.
HWY_INLINE float ReduceTree(__m512 v) {
  const __m256 v8 = _mm256_add_ps(_mm512_castps512_ps256(v), _mm512_extractf32x8_ps(v, 1));
  const __m128 v4 = _mm_add_ps(_mm256_castps256_ps128(v8), _mm256_extractf128_ps(v8, 1));
  const __m128 v2 = _mm_add_ps(v4, _mm_movehl_ps(v4, v4));
  return _mm_cvtss_f32(_mm_add_ss(v2, _mm_movehdup_ps(v2)));
}

// 16 vectors' lane sums in one vector: lane 4t + r holds the sum of a[4r + t]. Four rounds of
// pairing (45 shuffles and adds) instead of 16 separate reductions (128).
HWY_INLINE __m512 Reduce16(const __m512 (&a)[16]) {
  __m512 l1[8], l2[4], l3[2];
  for (int p = 0; p < 8; ++p)  // lanes i + (i + 8) of two vectors
    l1[p] = _mm512_add_ps(_mm512_shuffle_f32x4(a[2 * p], a[2 * p + 1], _MM_SHUFFLE(1, 0, 1, 0)),
                          _mm512_shuffle_f32x4(a[2 * p], a[2 * p + 1], _MM_SHUFFLE(3, 2, 3, 2)));
  for (int q = 0; q < 4; ++q)  // i + (i + 4)
    l2[q] = _mm512_add_ps(_mm512_shuffle_f32x4(l1[2 * q], l1[2 * q + 1], _MM_SHUFFLE(2, 0, 2, 0)),
                          _mm512_shuffle_f32x4(l1[2 * q], l1[2 * q + 1], _MM_SHUFFLE(3, 1, 3, 1)));
  for (int r = 0; r < 2; ++r) {  // i + (i + 2)
    const __m512d x = _mm512_castps_pd(l2[2 * r]), y = _mm512_castps_pd(l2[2 * r + 1]);
    l3[r] = _mm512_add_ps(_mm512_castpd_ps(_mm512_unpacklo_pd(x, y)),
                          _mm512_castpd_ps(_mm512_unpackhi_pd(x, y)));
  }
  return _mm512_add_ps(_mm512_shuffle_ps(l3[0], l3[1], _MM_SHUFFLE(2, 0, 2, 0)),  // i + (i + 1)
                       _mm512_shuffle_ps(l3[0], l3[1], _MM_SHUFFLE(3, 1, 3, 1)));
}
#endif

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
#if HWY_TARGET <= HWY_AVX3
  float sums[NT][NR];
  if constexpr (NR == 4 && NT == 4) {
    __m512 a[16];
    for (int r = 0; r < 4; ++r)
      for (int t = 0; t < 4; ++t) a[4 * r + t] = acc[r][t].raw;
    _mm512_storeu_ps(&sums[0][0], Reduce16(a));
  } else {
    for (int r = 0; r < NR; ++r)
      for (int t = 0; t < NT; ++t) sums[t][r] = ReduceTree(acc[r][t].raw);
  }
#endif
  for (int r = 0; r < NR; ++r)
    for (int t = 0; t < NT; ++t) {
#if HWY_TARGET <= HWY_AVX3
      float s = sums[t][r];
#else
      float s = hn::GetLane(hn::SumOfLanes(df, acc[r][t]));
#endif
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
