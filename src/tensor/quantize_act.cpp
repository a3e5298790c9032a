// Activations to int8 per 32-value block with one float scale (the Q8_0 scheme), plus the
// per-lane scales and per-16 sums the integer kernels read (tensor/quant_dot.hpp).
#ifndef HWY_WANT_AVX3_DL
#define HWY_WANT_AVX3_DL 1  // as tensor/quant_dot.cpp: one target list for the integer path
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tensor/quantize_act.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "meadow/error.hpp"
#include "tensor/parallel.hpp"
#include "tensor/quant_dot.hpp"

HWY_BEFORE_NAMESPACE();
namespace meadow::tensor::detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// At most 16 lanes: a vector never spans two of the 16-value sums.
using DF = hn::CappedTag<float, 16>;

#if HWY_TARGET <= HWY_AVX3
// 128-bit units (kUnits) or lanes within each unit (else) of x and y, as shuffle_f32x4 /
// shuffle_ps pick them by kImm.
template <bool kUnits, int kImm>
HWY_INLINE __m512i Pick(__m512i x, __m512i y) {
  const __m512 fx = _mm512_castsi512_ps(x), fy = _mm512_castsi512_ps(y);
  if constexpr (kUnits) {
    return _mm512_castps_si512(_mm512_shuffle_f32x4(fx, fy, kImm));
  } else {
    return _mm512_castps_si512(_mm512_shuffle_ps(fx, fy, kImm));
  }
}

// Lane i of the result: op over the 16 lanes of a[i]. Four rounds of pairing (shuffles and ops
// on 15 vector pairs) instead of a 4-step reduction per vector; max and integer sums are exact in
// any order, so the result equals one reduction per vector.
template <class Op>
HWY_INLINE __m512i Reduce16(const __m512i (&a)[16], Op op) {
  __m512i l1[8], l2[4], l3[2];
  for (int p = 0; p < 8; ++p)
    l1[p] = op(Pick<true, 0x44>(a[2 * p], a[2 * p + 1]), Pick<true, 0xEE>(a[2 * p], a[2 * p + 1]));
  for (int p = 0; p < 4; ++p)
    l2[p] =
        op(Pick<true, 0x88>(l1[2 * p], l1[2 * p + 1]), Pick<true, 0xDD>(l1[2 * p], l1[2 * p + 1]));
  for (int p = 0; p < 2; ++p)
    l3[p] = op(Pick<false, 0x44>(l2[2 * p], l2[2 * p + 1]),
               Pick<false, 0xEE>(l2[2 * p], l2[2 * p + 1]));
  const __m512i r = op(Pick<false, 0x88>(l3[0], l3[1]), Pick<false, 0xDD>(l3[0], l3[1]));
  // Lane 4k + j holds a[4j + k]: back to lane i for a[i].
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  return _mm512_permutexvar_epi32(order, r);
}

// 16 blocks (512 values) with one scale per 32, as the loop below quantizes them.
HWY_INLINE void Quantize16Blocks(const float* x, int8_t* q, float* lane_scale, float* sum16,
                                 float* block_d) {
  const __m512i abs_bits = _mm512_set1_epi32(0x7fffffff);
  const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  __m512i m[16];
  for (int b = 0; b < 16; ++b) {
    const __m512i a0 = _mm512_and_si512(_mm512_castps_si512(_mm512_loadu_ps(x + 32 * b)), abs_bits);
    const __m512i a1 =
        _mm512_and_si512(_mm512_castps_si512(_mm512_loadu_ps(x + 32 * b + 16)), abs_bits);
    m[b] = _mm512_castps_si512(_mm512_max_ps(_mm512_castsi512_ps(a0), _mm512_castsi512_ps(a1)));
  }
  auto max = [](__m512i a, __m512i b) {
    return _mm512_castps_si512(_mm512_max_ps(_mm512_castsi512_ps(a), _mm512_castsi512_ps(b)));
  };
  const __m512 amax = _mm512_castsi512_ps(Reduce16(m, max));
  const __m512 d = _mm512_div_ps(amax, _mm512_set1_ps(127.0f));
  const __mmask16 some = _mm512_cmp_ps_mask(amax, _mm512_setzero_ps(), _CMP_GT_OQ);
  const __m512 inv = _mm512_maskz_div_ps(some, _mm512_set1_ps(127.0f), amax);
  _mm512_storeu_ps(block_d, d);
  for (int v = 0; v < 8; ++v) {  // lane_scale: each block's d for its 8 groups of 4 values
    const __m512i at = _mm512_add_epi32(_mm512_set1_epi32(2 * v), _mm512_srli_epi32(iota, 3));
    _mm512_storeu_ps(lane_scale + 16 * v, _mm512_permutexvar_ps(at, d));
  }
  __m512i sums[2][16];  // halves 0-15 (blocks 0-7), 16-31
  for (int b = 0; b < 16; ++b) {
    const __m512 ib = _mm512_permutexvar_ps(_mm512_set1_epi32(b), inv);
    for (int h = 0; h < 2; ++h) {
      const __m512i qi =
          _mm512_cvtps_epi32(_mm512_mul_ps(_mm512_loadu_ps(x + 32 * b + 16 * h), ib));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(q + 32 * b + 16 * h), _mm512_cvtsepi32_epi8(qi));
      sums[(2 * b + h) / 16][(2 * b + h) % 16] = qi;
    }
  }
  auto add = [](__m512i a, __m512i b) { return _mm512_add_epi32(a, b); };
  for (int part = 0; part < 2; ++part) {  // half i of the part's 8 blocks: that block's d
    const __m512i half_block =
        _mm512_add_epi32(_mm512_set1_epi32(8 * part), _mm512_srli_epi32(iota, 1));
    const __m512 s = _mm512_cvtepi32_ps(Reduce16(sums[part], add));
    _mm512_storeu_ps(sum16 + 16 * part, _mm512_mul_ps(_mm512_permutexvar_ps(half_block, d), s));
  }
}
#endif

void QuantizeRow(const float* x, int64_t cols, int64_t span, int8_t* q, float* lane_scale,
                 float* sum16, float* block_d) {
  const DF df;
  const hn::Rebind<int32_t, DF> di;
  const hn::Rebind<int8_t, DF> d8;
  const int64_t N = int64_t(hn::Lanes(df));
  int64_t done = 0;
#if HWY_TARGET <= HWY_AVX3
  if (span == 32)
    for (; done + 512 <= cols; done += 512)
      Quantize16Blocks(x + done, q + done, lane_scale + done / 4, sum16 + done / 16,
                       block_d + done / 32);
#endif
  for (int64_t g0 = done; g0 < cols; g0 += span) {  // one scale per span of whole blocks
    const int64_t g1 = std::min(cols, g0 + span);
    auto amax = hn::Zero(df);
    for (int64_t j = g0; j < g1; j += N) amax = hn::Max(amax, hn::Abs(hn::LoadU(df, x + j)));
    const float m = hn::GetLane(hn::MaxOfLanes(df, amax));
    const float d = m / 127.0f;
    // Multiply by the inverse (one division per span); x * (127 / m) never exceeds 127.
    const auto inv = hn::Set(df, m > 0.0f ? 127.0f / m : 0.0f);
    for (int64_t b = g0 / 32; b < g1 / 32; ++b) {
      const float* xb = x + 32 * b;
      for (int64_t h = 0; h < 2; ++h) {  // two halves of 16: one scaled sum each
        auto acc = hn::Zero(di);
        for (int64_t j = 16 * h; j < 16 * h + 16; j += N) {
          const auto qi = hn::NearestInt(hn::Mul(hn::LoadU(df, xb + j), inv));
          acc = hn::Add(acc, qi);
          hn::StoreU(hn::DemoteTo(d8, qi), d8, q + 32 * b + j);
        }
        sum16[2 * b + h] = d * float(hn::GetLane(hn::SumOfLanes(di, acc)));
      }
      std::fill_n(lane_scale + 8 * b, 8, d);
      block_d[b] = d;
    }
  }
}

// Tokens [t0, t0 + g) of a into the grouped layout (their rows already quantized).
void GroupTokens(QuantizedActs& a, int64_t t0, int64_t g) {
  const int64_t words = a.stride / 4, blocks = a.stride / 32;
  const auto* q = reinterpret_cast<const uint8_t*>(a.q.data());
  int64_t b0 = 0;           // scales of blocks before b0 are done
  bool words_done = false;  // gq
#if HWY_TARGET <= HWY_AVX2
  if (g >= 4) {  // 8 x 8 transposes: a block's 8 words of 8 tokens, then 8 blocks' scales; a
                 // smaller group repeats its last token's rows and stores only its own lanes
    auto transpose = [](__m256i(&r)[8]) {
      __m256i t[8], u[8];
      for (int i = 0; i < 4; ++i) {
        t[2 * i] = _mm256_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm256_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
      }
      for (int i = 0; i < 2; ++i)
        for (int h = 0; h < 2; ++h) {
          u[4 * i + 2 * h] = _mm256_unpacklo_epi64(t[4 * i + h], t[4 * i + 2 + h]);
          u[4 * i + 2 * h + 1] = _mm256_unpackhi_epi64(t[4 * i + h], t[4 * i + 2 + h]);
        }
      for (int j = 0; j < 4; ++j) {
        r[j] = _mm256_permute2x128_si256(u[j], u[4 + j], 0x20);
        r[4 + j] = _mm256_permute2x128_si256(u[j], u[4 + j], 0x31);
      }
    };
    const __m256i lanes =
        _mm256_cmpgt_epi32(_mm256_set1_epi32(int(g)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    auto store = [&](void* at, __m256i v) {
      if (g == 8) {
        _mm256_storeu_si256(static_cast<__m256i*>(at), v);
      } else {
        _mm256_maskstore_epi32(static_cast<int*>(at), lanes, v);
      }
    };
    int64_t row[8];  // the token of each row
    for (int k = 0; k < 8; ++k) row[k] = t0 + std::min<int64_t>(k, g - 1);
    int32_t* gq = a.gq.data() + t0 * words;
    for (int64_t b = 0; b < blocks; ++b) {
      __m256i r[8];
      for (int k = 0; k < 8; ++k)
        r[k] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + row[k] * a.stride + 32 * b));
      transpose(r);
      for (int j = 0; j < 8; ++j) store(gq + (8 * b + j) * g, r[j]);
    }
    words_done = true;
    for (; b0 + 8 <= blocks; b0 += 8) {
      __m256i d[8], lo[8], hi[8];
      for (int k = 0; k < 8; ++k) {
        d[k] = _mm256_castps_si256(_mm256_loadu_ps(a.block_d.data() + row[k] * blocks + b0));
        const float* s16 = a.scaled_sum16.data() + row[k] * blocks * 2 + 2 * b0;
        const __m256 x = _mm256_loadu_ps(s16), y = _mm256_loadu_ps(s16 + 8);
        // Halves 0 and 1 of the 8 blocks, in block order (shuffle within lanes, then units).
        lo[k] = _mm256_permute4x64_epi64(_mm256_castps_si256(_mm256_shuffle_ps(x, y, 0x88)), 0xD8);
        hi[k] = _mm256_permute4x64_epi64(_mm256_castps_si256(_mm256_shuffle_ps(x, y, 0xDD)), 0xD8);
      }
      transpose(d);
      transpose(lo);
      transpose(hi);
      const int64_t at = t0 * blocks + b0 * g;
      for (int j = 0; j < 8; ++j) {
        const __m256 sum = _mm256_add_ps(_mm256_castsi256_ps(lo[j]), _mm256_castsi256_ps(hi[j]));
        store(a.gd.data() + at + g * j, d[j]);
        store(a.gsa.data() + at + g * j, lo[j]);
        store(a.gsb.data() + at + g * j, hi[j]);
        store(a.gsum.data() + at + g * j, _mm256_castps_si256(sum));
      }
    }
  }
#endif
  for (int64_t k = 0; k < g; ++k) {
    const int64_t t = t0 + k;
    if (!words_done) {
      int32_t* gq = a.gq.data() + t0 * words + k;
      if (g == 1) {  // one token's words lie as in its row
        std::memcpy(gq, q + t * words * 4, size_t(words) * 4);
      } else {
        for (int64_t i = 0; i < words; ++i) std::memcpy(gq + i * g, q + (t * words + i) * 4, 4);
      }
    }
    for (int64_t b = b0; b < blocks; ++b) {
      const size_t at = size_t(t0 * blocks + b * g + k);
      a.gd[at] = a.block_d[size_t(t * blocks + b)];
      a.gsa[at] = a.scaled_sum16[size_t(t * blocks * 2 + 2 * b)];
      a.gsb[at] = a.scaled_sum16[size_t(t * blocks * 2 + 2 * b + 1)];
      a.gsum[at] = a.gsa[at] + a.gsb[at];
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace meadow::tensor::detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace meadow::tensor::detail {

HWY_EXPORT(QuantizeRow);
HWY_EXPORT(GroupTokens);

void quantize_acts(const float* x, int64_t n, int64_t cols, QuantizedActs& out, Threads th,
                   bool grouped, int64_t span) {
  if (span != 32 && span != 256) throw Error("quantize_acts: a span of 32 or 256 values");
  const int64_t stride = quant_stride(cols);
  out.span = span;
  out.n = n;
  out.cols = cols;
  out.stride = stride;
  out.grouped = grouped;
  // resize keeps the capacity (a warm call allocates nothing); each token's padding after
  // `cols` is zeroed with its row below, by whichever worker quantizes it.
  out.q.resize(size_t(n * stride));
  out.lane_scale.resize(size_t(n * stride / 4));
  out.scaled_sum16.resize(size_t(n * stride / 16));
  out.block_d.resize(size_t(n * stride / 32));
  if (grouped) {
    out.gq.resize(size_t(n * stride / 4));  // every element is written by group()
    for (auto* v : {&out.gd, &out.gsa, &out.gsb, &out.gsum}) v->resize(size_t(n * stride / 32));
  }
  // One group of tokens per task: the workers quantize and regroup disjoint tokens.
  parallel_for((n + kTokenGroup - 1) / kTokenGroup, 1, th, [&](int64_t b, int64_t e, int) {
    for (int64_t gi = b; gi < e; ++gi) {
      const int64_t t0 = gi * kTokenGroup, g = std::min(kTokenGroup, n - t0);
      for (int64_t t = t0; t < t0 + g; ++t) {
        int8_t* q = out.q.data() + t * stride;
        float* ls = out.lane_scale.data() + t * stride / 4;
        float* s16 = out.scaled_sum16.data() + t * stride / 16;
        float* bd = out.block_d.data() + t * stride / 32;
        std::fill(q + cols, q + stride, int8_t{0});
        std::fill(ls + cols / 4, ls + stride / 4, 0.0f);
        std::fill(s16 + cols / 16, s16 + stride / 16, 0.0f);
        std::fill(bd + cols / 32, bd + stride / 32, 0.0f);
        HWY_DYNAMIC_DISPATCH(QuantizeRow)(x + t * cols, cols, span, q, ls, s16, bd);
      }
      if (grouped) HWY_DYNAMIC_DISPATCH(GroupTokens)(out, t0, g);
    }
  });
}

}  // namespace meadow::tensor::detail
#endif
