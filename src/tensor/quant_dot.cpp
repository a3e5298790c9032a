// Integer dot products of quantized weight rows with int8 block-quantized activations
// (tensor/quant_dot.hpp), compiled once per SIMD target by Highway and dispatched at run time.
//
// Every weight type is brought into the same shape:
//   w_i = scale_b * u_i + offset_b,   u_i an unsigned byte, b the value's 32-value block
// (per 16 values for Q6_K), so one kernel serves all types: it forms int32 sums of 4 products
// u * q, converts them to float once per block and multiplies by the weight's and the
// activation's scales. The offsets meet the activations' per-16 sums in float (Q4_0's -8 d,
// Q4_1's m, Q4_K's -dmin m, Q6_K's -32 d sc, Q8_0's -128 d after storing its signed values as
// q + 128).
//
// Two kernels. From kPanelMinTokens tokens the panel kernel: 16 rows (one per int32 lane) are
// brought side by side, a chunk of columns at a time, and every token's 4-value groups are
// broadcast against them. Below that, AVX-512 reads Q4_0, Q4_1, Q4_K and Q8_0 blocks in place
// (the direct kernels); other targets and types unpack rows one at a time and dot each with the
// few tokens. Weights packed at load (Q4_0, Q4_1: the packed panels below) take the panel
// kernel at any token count, reading the panels in place.
//
// The installed Highway (1.0) has no u8 x i8 dot-product op, so the one instruction pattern
// that matters is written per x86 target here: vpdpbusd on AVX-512 VNNI, vpmaddubsw + vpmaddwd
// on AVX-512/AVX2/SSSE3, and plain widening Highway arithmetic on every other target.
#ifndef HWY_WANT_AVX3_DL
#define HWY_WANT_AVX3_DL 1  // compile the AVX-512 VNNI target too (Highway skips it by default)
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tensor/quant_dot.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <type_traits>
#include <vector>

#include "meadow/error.hpp"
#include "meadow/runtime/gguf.hpp"
#include "tensor/quant_blocks.hpp"
#include "tensor/quant_dot.hpp"

HWY_BEFORE_NAMESPACE();
namespace meadow::tensor::detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using TT = gguf::TensorType;
using DU8 = hn::ScalableTag<uint8_t>;
using DI8 = hn::ScalableTag<int8_t>;
using DI32 = hn::ScalableTag<int32_t>;
using DF = hn::ScalableTag<float>;

#if HWY_TARGET != HWY_SCALAR  // one-lane vectors cannot hold groups of 4 bytes: see below

// acc[l] + sum_{k<4} u[4l+k] * s[4l+k], exact for u <= 255 and |s| <= 127: each product fits
// int16, the sums are formed in int32. Portable Highway arithmetic (the emulated path). Any
// vector width: the kernels use full vectors and, for a row's last blocks, 4-lane ones.
template <class VU, class VS, class VI>
HWY_INLINE VI DotQuadWide(VU u, VS s, VI acc) {
  const hn::DFromV<VI> di32;
  const hn::Repartition<uint16_t, decltype(di32)> du16;
  const hn::Repartition<int16_t, decltype(di32)> di16;
  const auto u16 = hn::BitCast(du16, u);
  const auto ue = hn::BitCast(di16, hn::And(u16, hn::Set(du16, uint16_t{0xff})));
  const auto uo = hn::BitCast(di16, hn::ShiftRight<8>(u16));
  const auto s16 = hn::BitCast(di16, s);
  const auto se = hn::ShiftRight<8>(hn::ShiftLeft<8>(s16));  // sign-extends the even bytes
  const auto so = hn::ShiftRight<8>(s16);
  const auto pe = hn::BitCast(di32, hn::Mul(ue, se));
  const auto po = hn::BitCast(di32, hn::Mul(uo, so));
  const auto lo =
      hn::Add(hn::ShiftRight<16>(hn::ShiftLeft<16>(pe)), hn::ShiftRight<16>(hn::ShiftLeft<16>(po)));
  const auto hi = hn::Add(hn::ShiftRight<16>(pe), hn::ShiftRight<16>(po));
  return hn::Add(acc, hn::Add(lo, hi));
}

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_SSSE3 && HWY_TARGET != HWY_AVX3_DL
// vpmaddubsw (u8 x i8 pairs to int16, saturating) then vpmaddwd by 1 (pairs to int32).
HWY_INLINE __m128i MaddUbs(__m128i u, __m128i s) {
  return _mm_madd_epi16(_mm_maddubs_epi16(u, s), _mm_set1_epi16(1));
}
#if HWY_TARGET <= HWY_AVX2
HWY_INLINE __m256i MaddUbs(__m256i u, __m256i s) {
  return _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), _mm256_set1_epi16(1));
}
#endif
#if HWY_TARGET <= HWY_AVX3
HWY_INLINE __m512i MaddUbs(__m512i u, __m512i s) {
  return _mm512_madd_epi16(_mm512_maddubs_epi16(u, s), _mm512_set1_epi16(1));
}
#endif
#endif

// The same sum for u <= 128 (4- and 6-bit weights): pairs of products then fit int16 without
// saturating, which is what vpmaddubsw needs.
template <class VU, class VS, class VI>
HWY_INLINE VI DotQuadSmall(VU u, VS s, VI acc) {
#if HWY_TARGET == HWY_AVX3_DL
  // Inline asm, not _mm512_dpbusd_epi32: Highway 1.0's AVX3_DL target string names
  // "avxvnni" instead of "avx512vnni", so GCC refuses the intrinsic there. acc += u . s, on
  // xmm, ymm or zmm registers as the vector type says.
  auto r = acc.raw;
  asm("vpdpbusd %2, %1, %0" : "+v"(r) : "v"(u.raw), "v"(s.raw));
  return VI{r};
#elif HWY_ARCH_X86 && HWY_TARGET <= HWY_SSSE3
  return hn::Add(acc, VI{MaddUbs(u.raw, s.raw)});
#else
  return DotQuadWide(u, s, acc);
#endif
}

// vpdpbusd does not saturate, so on VNNI the wide case is the same instruction.
template <class VU, class VS, class VI>
HWY_INLINE VI DotQuadAny(VU u, VS s, VI acc) {
#if HWY_TARGET == HWY_AVX3_DL
  return DotQuadSmall(u, s, acc);
#else
  return DotQuadWide(u, s, acc);
#endif
}

#endif  // HWY_TARGET != HWY_SCALAR

// Byte views of int32 storage. The byte buffers that InterleaveBlocks gathers from and writes
// to hold int32 objects, so its 4-byte loads and stores never alias another type; bytes are
// read and written through unsigned char, which may alias anything.
HWY_INLINE uint8_t* Bytes(std::vector<int32_t>& v) {
  return reinterpret_cast<uint8_t*>(v.data());
}
HWY_INLINE const uint8_t* Bytes(const std::vector<int32_t>& v) {
  return reinterpret_cast<const uint8_t*>(v.data());
}

using D16 = hn::CappedTag<uint8_t, 16>;

// Scale s and offset o of half h (values 16h .. 16h + 15) of block b. The lane scales are
// stored as vectors: scalar fills made the few-token kernel's unpacking 60 % slower.
HWY_INLINE void SetHalf(RowBuf& r, int64_t b, int h, float s, float o) {
  const hn::CappedTag<float, 4> d4;
  const int64_t at = 8 * b + 4 * h;
  for (int64_t i = 0; i < 4; i += int64_t(hn::Lanes(d4)))
    hn::StoreU(hn::Set(d4, s), d4, r.scale.data() + at + i);
  r.offset[size_t(2 * b + h)] = o;
}

// A 32-value block with one scale d and one offset o for both halves.
HWY_INLINE void SetBlockScales(RowBuf& r, int64_t b, float d, float o) {
  const hn::CappedTag<float, 8> d8;
  for (int64_t i = 0; i < 8; i += int64_t(hn::Lanes(d8)))
    hn::StoreU(hn::Set(d8, d), d8, r.scale.data() + 8 * b + i);
  r.offset[size_t(2 * b)] = r.offset[size_t(2 * b + 1)] = o;
}

// Q4_0 and Q4_1 share the nibble layout: byte i holds values i (low) and i + 16 (high).
HWY_INLINE void UnpackNibbles16(const uint8_t* qs, uint8_t* u) {
  const D16 d16;
  const size_t N = hn::Lanes(d16);
  const auto mask = hn::Set(d16, uint8_t{0x0f});
  for (size_t j = 0; j < 16; j += N) {
    const auto v = hn::LoadU(d16, qs + j);
    hn::StoreU(hn::And(v, mask), d16, u + j);
    hn::StoreU(hn::ShiftRight<4>(v), d16, u + 16 + j);
  }
}

HWY_INLINE void UnpackQ4_0(const BlockQ4_0* b, int64_t nb, RowBuf& r) {
  for (int64_t i = 0; i < nb; ++i) {
    UnpackNibbles16(b[i].qs, Bytes(r.u) + 32 * i);
    const float d = fp16_to_float(b[i].d);
    SetBlockScales(r, i, d, -8.0f * d);
  }
}

HWY_INLINE void UnpackQ4_1(const BlockQ4_1* b, int64_t nb, RowBuf& r) {
  for (int64_t i = 0; i < nb; ++i) {
    UnpackNibbles16(b[i].qs, Bytes(r.u) + 32 * i);
    SetBlockScales(r, i, fp16_to_float(b[i].d), fp16_to_float(b[i].m));
  }
}

// Signed q stored as q + 128 (flip the top bit); the offset takes the 128 back out.
HWY_INLINE void UnpackQ8_0(const BlockQ8_0* b, int64_t nb, RowBuf& r) {
  const D16 d16;
  const size_t N = hn::Lanes(d16);
  const auto flip = hn::Set(d16, uint8_t{0x80});
  for (int64_t i = 0; i < nb; ++i) {
    const auto* qs = reinterpret_cast<const uint8_t*>(b[i].qs);
    for (size_t j = 0; j < 32; j += N) {
      hn::StoreU(hn::Xor(hn::LoadU(d16, qs + j), flip), d16, Bytes(r.u) + 32 * i + j);
    }
    const float d = fp16_to_float(b[i].d);
    SetBlockScales(r, i, d, -128.0f * d);
  }
}

// A Q4_K super-block's eight 6-bit scales (bytes 0-7) and minimums (bytes 8-15), from its 12
// scale bytes four at a time: bytes 0-3 hold scales 0-3 (low 6 bits) and the top bits of scales
// 4-7, bytes 4-7 the same for the minimums, bytes 8-11 the low 4 bits of scales 4-7 (low
// nibble) and minimums 4-7 (high).
HWY_INLINE void Q4_KScaleBytes(const BlockQ4_K& blk, uint8_t (&sm)[16]) {
  uint32_t w[3];
  std::memcpy(w, blk.scales, sizeof w);
  const uint32_t packed[4] = {
      w[0] & 0x3f3f3f3fu, (w[2] & 0x0f0f0f0fu) | ((w[0] >> 2) & 0x30303030u), w[1] & 0x3f3f3f3fu,
      ((w[2] >> 4) & 0x0f0f0f0fu) | ((w[1] >> 2) & 0x30303030u)};
  std::memcpy(sm, packed, sizeof sm);
}

#if HWY_TARGET <= HWY_AVX3
// The same as floats in one vector: lanes 0-7 d * scale_j, lanes 8-15 -dmin * min_j.
HWY_INLINE __m512 Q4_KScaleVector(const BlockQ4_K& blk) {
  uint8_t sm[16];
  Q4_KScaleBytes(blk, sm);
  const __m512 f = _mm512_cvtepi32_ps(
      _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(sm))));
  return _mm512_mul_ps(f, _mm512_insertf32x8(_mm512_set1_ps(fp16_to_float(blk.d)),
                                             _mm256_set1_ps(-fp16_to_float(blk.dmin)), 1));
}
#endif

// Super-block i's block scales and offsets into r.
HWY_INLINE void Q4_KScales(const BlockQ4_K& blk, int64_t i, RowBuf& r) {
  const float d = fp16_to_float(blk.d);
  const float dmin = fp16_to_float(blk.dmin);
  uint8_t sm[16];
  Q4_KScaleBytes(blk, sm);
  for (int j = 0; j < 8; ++j)
    SetBlockScales(r, 8 * i + j, d * float(sm[j]), -dmin * float(sm[8 + j]));
}

HWY_INLINE void UnpackQ4_K(const BlockQ4_K* b, int64_t nb, RowBuf& r) {
  const D16 d16;
  const size_t N = hn::Lanes(d16);
  const auto mask = hn::Set(d16, uint8_t{0x0f});
  for (int64_t i = 0; i < nb; ++i) {
    uint8_t* u = Bytes(r.u) + 256 * i;
    for (int c = 0; c < 4; ++c) {  // 32 bytes: sub-block 2c in the low nibbles, 2c+1 high
      const uint8_t* q = b[i].qs + 32 * c;
      for (size_t l = 0; l < 32; l += N) {
        const auto v = hn::LoadU(d16, q + l);
        hn::StoreU(hn::And(v, mask), d16, u + 64 * c + l);
        hn::StoreU(hn::ShiftRight<4>(v), d16, u + 64 * c + 32 + l);
      }
    }
    Q4_KScales(b[i], i, r);
  }
}

// 6-bit values (0..63, centred on 32) with one int8 scale per 16 values.
HWY_INLINE void UnpackQ6_K(const BlockQ6_K* b, int64_t nb, RowBuf& r) {
  const D16 d16;
  const size_t N = hn::Lanes(d16);
  const auto m4 = hn::Set(d16, uint8_t{0x0f});
  const auto m2 = hn::Set(d16, uint8_t{0x03});
  for (int64_t i = 0; i < nb; ++i) {
    const float d = fp16_to_float(b[i].d);
    for (int h = 0; h < 2; ++h) {  // two halves of 128 values
      const uint8_t* ql = b[i].ql + 64 * h;
      const uint8_t* qh = b[i].qh + 32 * h;
      uint8_t* u = Bytes(r.u) + 256 * i + 128 * h;
      for (size_t l = 0; l < 32; l += N) {
        const auto a = hn::LoadU(d16, ql + l);
        const auto c = hn::LoadU(d16, ql + 32 + l);
        const auto hi = hn::LoadU(d16, qh + l);
        hn::StoreU(hn::Or(hn::And(a, m4), hn::ShiftLeft<4>(hn::And(hi, m2))), d16, u + l);
        hn::StoreU(hn::Or(hn::And(c, m4), hn::ShiftLeft<4>(hn::And(hn::ShiftRight<2>(hi), m2))),
                   d16, u + 32 + l);
        hn::StoreU(
            hn::Or(hn::ShiftRight<4>(a), hn::ShiftLeft<4>(hn::And(hn::ShiftRight<4>(hi), m2))), d16,
            u + 64 + l);
        hn::StoreU(hn::Or(hn::ShiftRight<4>(c), hn::ShiftLeft<4>(hn::ShiftRight<6>(hi))), d16,
                   u + 96 + l);
      }
    }
    for (int k = 0; k < 16; ++k) {  // sub-block k covers values 16k .. 16k + 15, in order
      const float s = d * float(b[i].scales[k]);
      SetHalf(r, 8 * i + k / 2, k % 2, s, -32.0f * s);
    }
  }
}

HWY_INLINE void Unpack(TT type, const uint8_t* row, int64_t cols, RowBuf& r) {
  switch (type) {
    case TT::Q4_0:
      return UnpackQ4_0(reinterpret_cast<const BlockQ4_0*>(row), cols / 32, r);
    case TT::Q4_1:
      return UnpackQ4_1(reinterpret_cast<const BlockQ4_1*>(row), cols / 32, r);
    case TT::Q8_0:
      return UnpackQ8_0(reinterpret_cast<const BlockQ8_0*>(row), cols / 32, r);
    case TT::Q4_K:
      return UnpackQ4_K(reinterpret_cast<const BlockQ4_K*>(row), cols / 256, r);
    case TT::Q6_K:
      return UnpackQ6_K(reinterpret_cast<const BlockQ6_K*>(row), cols / 256, r);
    default:
      return;  // int_dot_supported() keeps other types away
  }
}

// sum_k offset[k] * scaled_sum16[k] over n values (a multiple of 4).
HWY_INLINE float OffsetDot(const float* HWY_RESTRICT o, const float* HWY_RESTRICT s, int64_t n) {
  const DF df;
  const int64_t N = int64_t(hn::Lanes(df));
  auto acc = hn::Zero(df);
  int64_t i = 0;
  for (; i + N <= n; i += N) acc = hn::MulAdd(hn::LoadU(df, o + i), hn::LoadU(df, s + i), acc);
  float sum = hn::GetLane(hn::SumOfLanes(df, acc));
  for (; i < n; ++i) sum += o[i] * s[i];
  return sum;
}

#if HWY_TARGET == HWY_SCALAR
// The scalar target: the same sums in plain C++, one group of 4 values at a time.
template <int T, bool kWide>
HWY_INLINE void RowTimesTokens(const RowBuf& r, const QuantizedActs& a, int64_t t0, float* out) {
  const int64_t stride = a.stride;
  for (int k = 0; k < T; ++k) {
    const int8_t* q = a.q.data() + (t0 + k) * stride;
    const float* ls = a.lane_scale.data() + (t0 + k) * stride / 4;
    float acc = 0.0f;
    for (int64_t c = 0; c < stride; c += 4) {
      int32_t dot = 0;
      for (int64_t i = c; i < c + 4; ++i) dot += int32_t(Bytes(r.u)[i]) * q[i];
      acc += float(dot) * (r.scale[size_t(c / 4)] * ls[c / 4]);
    }
    out[k] = acc + OffsetDot(r.offset.data(), a.scaled_sum16.data() + (t0 + k) * stride / 16,
                             stride / 16);
  }
}
#else
// Dots of one unpacked row with T consecutive activation rows starting at t0: the row's
// bytes and scales are loaded once per step and reused T times.
template <int T, bool kWide>
HWY_INLINE void RowTimesTokens(const RowBuf& r, const QuantizedActs& a, int64_t t0, float* out) {
  const DU8 du8;
  const DI8 di8;
  const DI32 di32;
  const DF df;
  const int64_t step = int64_t(hn::Lanes(du8));  // bytes per vector; divides the stride
  const int64_t stride = a.stride;
  const int8_t* q[T];
  const float* ls[T];
  hn::Vec<DF> acc[T];
  for (int k = 0; k < T; ++k) {
    q[k] = a.q.data() + (t0 + k) * stride;
    ls[k] = a.lane_scale.data() + (t0 + k) * stride / 4;
    acc[k] = hn::Zero(df);
  }
  for (int64_t c = 0; c < stride; c += step) {
    const auto u = hn::LoadU(du8, Bytes(r.u) + c);
    const auto ws = hn::LoadU(df, r.scale.data() + c / 4);
    for (int k = 0; k < T; ++k) {
      const auto s = hn::LoadU(di8, q[k] + c);
      hn::Vec<DI32> dots;
      if constexpr (kWide) {
        dots = DotQuadAny(u, s, hn::Zero(di32));
      } else {
        dots = DotQuadSmall(u, s, hn::Zero(di32));
      }
      const auto scale = hn::Mul(ws, hn::LoadU(df, ls[k] + c / 4));
      acc[k] = hn::MulAdd(hn::ConvertTo(df, dots), scale, acc[k]);
    }
  }
  for (int k = 0; k < T; ++k) {
    out[k] =
        hn::GetLane(hn::SumOfLanes(df, acc[k])) +
        OffsetDot(r.offset.data(), a.scaled_sum16.data() + (t0 + k) * stride / 16, stride / 16);
  }
}

#if HWY_TARGET <= HWY_AVX3
// 64 bytes of a Q4_K super-block's quants (m = 0 or 1) as two vectors of bytes: sub-blocks
// 4m and 4m + 1, then 4m + 2 and 4m + 3 (the first 32 bytes hold 4m in their low nibbles and
// 4m + 1 in their high ones, the second 32 the next two).
HWY_INLINE void Q4_KSubBlockPairs(const uint8_t* qs, int m, __m512i (&u)[2]) {
  const __m512i mask = _mm512_set1_epi8(0x0f);
  const __m512i v = _mm512_loadu_si512(qs + 64 * m);
  const __m512i lo = _mm512_and_si512(v, mask);
  const __m512i hi = _mm512_and_si512(_mm512_srli_epi16(v, 4), mask);
  u[0] = _mm512_shuffle_i64x2(lo, hi, _MM_SHUFFLE(1, 0, 1, 0));
  u[1] = _mm512_shuffle_i64x2(lo, hi, _MM_SHUFFLE(3, 2, 3, 2));
}

// One token times a Q4_K row, read straight from its blocks: the nibbles are split in
// registers, each pair of 32-value sub-blocks meets the token's int8 values in one instruction,
// and the int32 sums are scaled per sub-block in float. Unpacking a row first (the other
// kernels) pays off only when several tokens share it.
HWY_INLINE float DotQ4_KDirect(const BlockQ4_K* b, int64_t nb, const int8_t* q,
                               const float* block_d, const float* sum16) {
  const DI8 di8;
  const DI32 di32;
  // Lanes 0-7 take sub-block 2p's scale, 8-15 sub-block 2p + 1's.
  const __m512i pair[4] = {_mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1),
                           _mm512_setr_epi32(2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3),
                           _mm512_setr_epi32(4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5, 5, 5),
                           _mm512_setr_epi32(6, 6, 6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7, 7, 7, 7)};
  // Each minimum (lanes 8-15 of the scales) twice: once per 16-value sum.
  const __m512i twice =
      _mm512_setr_epi32(8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14, 15, 15);
  __m512 acc = _mm512_setzero_ps(), acc_min = _mm512_setzero_ps();
  for (int64_t i = 0; i < nb; ++i) {
    const __m512 sm = Q4_KScaleVector(b[i]);  // d * scale_j, then -dmin * min_j
    // d * scale_j * the token's block scale: one factor per sub-block.
    const __m512 c = _mm512_castps256_ps512(
        _mm256_mul_ps(_mm512_castps512_ps256(sm), _mm256_loadu_ps(block_d + 8 * i)));
    for (int m = 0; m < 2; ++m) {
      __m512i u[2];
      Q4_KSubBlockPairs(b[i].qs, m, u);
      for (int k = 0; k < 2; ++k) {
        const auto s = DotQuadSmall(hn::Vec<DU8>{u[k]},
                                    hn::LoadU(di8, q + 256 * i + 128 * m + 64 * k), hn::Zero(di32));
        acc = _mm512_fmadd_ps(_mm512_cvtepi32_ps(s.raw), _mm512_permutexvar_ps(pair[2 * m + k], c),
                              acc);
      }
    }
    acc_min =
        _mm512_fmadd_ps(_mm512_permutexvar_ps(twice, sm), _mm512_loadu_ps(sum16 + 16 * i), acc_min);
  }
  return _mm512_reduce_add_ps(_mm512_add_ps(acc, acc_min));
}

// Two 32-value blocks' bytes in one vector: 128-bit units lo0 hi0 lo1 hi1 (values 0-15 and
// 16-31 of block 0, then of block 1), as the token's 64 int8 values lie.
HWY_INLINE __m512i BlockPair(__m256i lo, __m256i hi) {
  const __m512i u = _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);  // lo0 lo1 hi0 hi1
  return _mm512_shuffle_i64x2(u, u, _MM_SHUFFLE(3, 1, 2, 0));
}

// T tokens times one Q4_0 (kMin false), Q4_1 or Q8_0 row, read straight from its blocks, two
// blocks per instruction: each lane's int32 sum (4 products of one block) is scaled in float
// by its block's weight and activation scales, so no sum crosses lanes until the end; the
// offsets (-8 d, m, -128 d) meet the blocks' activation sums. q, d, s16: token 0's values;
// stride: between tokens.
template <TT kType, int T>
HWY_INLINE void DotBlocksDirect(const uint8_t* row, int64_t nb, const int8_t* q, int64_t stride,
                                const float* d, const float* s16, float* out) {
  constexpr int64_t kBytes = kType == TT::Q8_0   ? int64_t(sizeof(BlockQ8_0))
                             : kType == TT::Q4_1 ? int64_t(sizeof(BlockQ4_1))
                                                 : int64_t(sizeof(BlockQ4_0));
  const DI8 di8;
  const DI32 di32;
  __m512 acc[T];
  float off[T];
  for (int k = 0; k < T; ++k) acc[k] = _mm512_setzero_ps(), off[k] = 0.0f;
  const __m256i mask = _mm256_set1_epi8(0x0f), flip = _mm256_set1_epi8(char(0x80));
  for (int64_t b = 0; b < nb; b += 2) {
    const bool pair = b + 1 < nb;  // the token's row is zero padded past the last block
    const uint8_t* b0 = row + b * kBytes;
    const uint8_t* b1 = pair ? b0 + kBytes : b0;
    float wd[2] = {0.0f, 0.0f}, wo[2] = {0.0f, 0.0f};  // a missing second block weighs 0
    for (int i = 0; i < (pair ? 2 : 1); ++i) {
      uint16_t h[2];
      std::memcpy(h, i ? b1 : b0, sizeof h);
      wd[i] = _cvtsh_ss(h[0]);
      wo[i] = kType == TT::Q4_1 ? _cvtsh_ss(h[1]) : (kType == TT::Q8_0 ? -128.0f : -8.0f) * wd[i];
    }
    __m512i u;
    if constexpr (kType == TT::Q8_0) {
      const __m256i x0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b0 + 2));
      const __m256i x1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b1 + 2));
      u = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_xor_si256(x0, flip)),
                             _mm256_xor_si256(x1, flip), 1);
    } else {
      constexpr int64_t kQs = kType == TT::Q4_1 ? 4 : 2;
      const __m256i x = _mm256_inserti128_si256(
          _mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b0 + kQs))),
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(b1 + kQs)), 1);
      u = BlockPair(_mm256_and_si256(x, mask), _mm256_and_si256(_mm256_srli_epi16(x, 4), mask));
    }
    for (int k = 0; k < T; ++k) {
      const int8_t* qk = q + k * stride + 32 * b;
      const float* dk = d + k * stride / 32 + b;
      const float* sk = s16 + k * stride / 16 + 2 * b;
      hn::Vec<DI32> sum;
      if constexpr (kType == TT::Q8_0) {  // q + 128 reaches 255
        sum = DotQuadAny(hn::Vec<DU8>{u}, hn::LoadU(di8, qk), hn::Zero(di32));
      } else {
        sum = DotQuadSmall(hn::Vec<DU8>{u}, hn::LoadU(di8, qk), hn::Zero(di32));
      }
      // Past an odd last block the token's scales and sums are the row's zero padding.
      const __m512 sc =
          _mm512_insertf32x8(_mm512_set1_ps(wd[0] * dk[0]), _mm256_set1_ps(wd[1] * dk[1]), 1);
      acc[k] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(sum.raw), sc, acc[k]);
      off[k] += wo[0] * (sk[0] + sk[1]) + wo[1] * (sk[2] + sk[3]);
    }
  }
  for (int k = 0; k < T; ++k) out[k] = _mm512_reduce_add_ps(acc[k]) + off[k];
}

// Rows [j0, j1) (or rows[j0..j1)) of a Q4_0, Q4_1 or Q8_0 matrix times a's 1-3 tokens.
template <TT kType>
HWY_INLINE void RowsDirect(const uint8_t* base, const int32_t* rows, int64_t rb, int64_t j0,
                           int64_t j1, int64_t cols, const QuantizedActs& a, float* y,
                           int64_t ldy) {
  for (int64_t j = j0; j < j1; ++j) {
    const uint8_t* row = base + (rows ? rows[j] : j) * rb;
    float out[3];
    const int8_t* q = a.q.data();
    const float *d = a.block_d.data(), *s16 = a.scaled_sum16.data();
    if (a.n == 1) {
      DotBlocksDirect<kType, 1>(row, cols / 32, q, a.stride, d, s16, out);
    } else if (a.n == 2) {
      DotBlocksDirect<kType, 2>(row, cols / 32, q, a.stride, d, s16, out);
    } else {
      DotBlocksDirect<kType, 3>(row, cols / 32, q, a.stride, d, s16, out);
    }
    for (int64_t t = 0; t < a.n; ++t) y[t * ldy + j] = out[t];
  }
}
#endif  // HWY_TARGET <= HWY_AVX3
#endif  // HWY_TARGET == HWY_SCALAR

template <bool kWide>
HWY_INLINE void RowTimesAll(const RowBuf& r, const QuantizedActs& a, float* y, int64_t ldy) {
  constexpr int kT = 4;
  float out[kT];
  int64_t t = 0;
  for (; t + kT <= a.n; t += kT) {
    RowTimesTokens<kT, kWide>(r, a, t, out);
    for (int k = 0; k < kT; ++k) y[(t + k) * ldy] = out[k];
  }
  for (; t < a.n; ++t) {
    RowTimesTokens<1, kWide>(r, a, t, out);
    y[t * ldy] = out[0];
  }
}

#if HWY_TARGET != HWY_SCALAR
// ---------------------------------------------------------------------------------------------
// The panel kernel (many tokens). L weight rows (L = int32 lanes) side by side: panel vector
// (b, j) holds bytes 4j .. 4j+3 of block b of every row, one row per lane. One vpdpbusd then
// multiplies 4 values of L rows with the same 4 values of one token (broadcast), a lane
// accumulates its row's block in int32 and is scaled once per block, and a token's results come
// out as one vector of L rows: no horizontal sums, no partial groups (any multiple of 32 columns
// is whole blocks), each weight vector loaded once per tile of tokens.
//
// Lane 4k + m holds row (L / 4) m + k: the order a 4 x 4 transpose within 128-bit units gives
// (TransposeQuads); results are put back in row order when stored.
HWY_INLINE int PanelRowOfLane(int l, int L) {
  return (L / 4) * (l % 4) + l / 4;
}

// A vector whose 128-bit unit k holds the 16 bytes at p[k] + off.
template <class D>
HWY_INLINE hn::Vec<D> LoadUnits(D d, const uint8_t* const* p, int64_t off) {
  if constexpr (hn::MaxLanes(d) <= 16) {
    return hn::LoadU(d, p[0] + off);
  } else {
    const hn::Half<D> dh;
    return hn::Combine(d, LoadUnits(dh, p + hn::MaxLanes(d) / 32, off), LoadUnits(dh, p, off));
  }
}

// Dwords j = 0..3 at byte offset off of every row in src (L row pointers, in row order) as
// four vectors v[j] in panel lane order.
HWY_INLINE void TransposeQuads(const uint8_t* const* src, int64_t off, hn::Vec<DI32> (&v)[4]) {
  const DU8 du8;
  const DI32 di32;
  const hn::Repartition<int64_t, DI32> di64;
  const int64_t nb = int64_t(hn::Lanes(di32)) / 4;  // 128-bit units per vector
  hn::Vec<DI32> z[4];                               // unit k of z[m]: row nb m + k
  for (int m = 0; m < 4; ++m) z[m] = hn::BitCast(di32, LoadUnits(du8, src + nb * m, off));
  const auto a = hn::BitCast(di64, hn::InterleaveLower(di32, z[0], z[1]));
  const auto b = hn::BitCast(di64, hn::InterleaveUpper(di32, z[0], z[1]));
  const auto c = hn::BitCast(di64, hn::InterleaveLower(di32, z[2], z[3]));
  const auto e = hn::BitCast(di64, hn::InterleaveUpper(di32, z[2], z[3]));
  v[0] = hn::BitCast(di32, hn::InterleaveLower(di64, a, c));
  v[1] = hn::BitCast(di32, hn::InterleaveUpper(di64, a, c));
  v[2] = hn::BitCast(di32, hn::InterleaveLower(di64, b, e));
  v[3] = hn::BitCast(di32, hn::InterleaveUpper(di64, b, e));
}

// `bytes` (a multiple of 16) of every row, transposed to dst: dword i of each row into vector
// i. Works for int8 quads and floats alike.
HWY_INLINE void TransposeRows(const uint8_t* const* src, int64_t bytes, void* dst) {
  const DI32 di32;
  const int64_t L = int64_t(hn::Lanes(di32));
  auto* out = static_cast<uint8_t*>(dst);
  for (int64_t off = 0; off < bytes; off += 16) {
    hn::Vec<DI32> v[4];
    TransposeQuads(src, off, v);
    for (int j = 0; j < 4; ++j)
      hn::StoreU(v[j], di32, reinterpret_cast<int32_t*>(out) + (off / 4 + j) * L);
  }
}

template <class T>
HWY_INLINE void Fit(std::vector<T>& v, size_t n) {
  if (v.size() < n) v.resize(n);  // keeps the contents and, warm, never allocates
}

// Nibbles of quad vectors v (values 4j..4j+3 low, 4j+16.. high, as Q4_0/Q4_1 and each half of a
// Q4_K chunk store them) as the panel's vectors j and j + 4 of a block at lo, and, for Q4_K's
// pairs, the high nibbles as the next block at hi.
HWY_INLINE void StoreNibbles(const hn::Vec<DI32> (&v)[4], int j0, int32_t* lo, int32_t* hi) {
  const DI32 di32;
  const int64_t L = int64_t(hn::Lanes(di32));
  const auto mask = hn::Set(di32, 0x0f0f0f0f);
  for (int j = 0; j < 4; ++j) {
    hn::StoreU(hn::And(v[j], mask), di32, lo + (j0 + j) * L);
    hn::StoreU(hn::And(hn::ShiftRight<4>(v[j]), mask), di32, hi + (j0 + j) * L);
  }
}

// The fp16 values at byte off of each row, in lane order, as floats. (An AVX-512 gather instead
// of the 16 scalar loads was no faster.)
HWY_INLINE hn::Vec<DF> HalfScales(const uint8_t* const* rows, int64_t off) {
  const DF df;
  const hn::Rebind<hwy::float16_t, DF> dh;
  const int L = int(hn::Lanes(df));
  HWY_ALIGN uint16_t h[16];
  for (int l = 0; l < L; ++l) std::memcpy(&h[l], rows[PanelRowOfLane(l, L)] + off, 2);
  return hn::PromoteTo(df, hn::Load(dh, reinterpret_cast<const hwy::float16_t*>(h)));
}

// Q4_0 (kMin false: offset -8 d) or Q4_1 (offset m) blocks [0, nblk) of rows (pointers to the
// chunk's first block) into p.
template <bool kMin>
HWY_INLINE void PanelQ4(const uint8_t* const* rows, int64_t nblk, Panel& p) {
  const DF df;
  const int64_t L = int64_t(hn::Lanes(df));
  constexpr int64_t kBytes = kMin ? sizeof(BlockQ4_1) : sizeof(BlockQ4_0);
  constexpr int64_t kQs = kMin ? offsetof(BlockQ4_1, qs) : offsetof(BlockQ4_0, qs);
  for (int64_t b = 0; b < nblk; ++b) {
    hn::Vec<DI32> v[4];
    TransposeQuads(rows, b * kBytes + kQs, v);
    int32_t* u = p.u.data() + 8 * b * L;
    StoreNibbles(v, 0, u, u + 4 * L);
    const auto d = HalfScales(rows, b * kBytes);
    hn::StoreU(d, df, p.sa.data() + b * L);
    hn::StoreU(kMin ? HalfScales(rows, b * kBytes + 2) : hn::Mul(d, hn::Set(df, -8.0f)), df,
               p.oa.data() + b * L);
  }
}

// Q4_K super-blocks [0, nblk / 8) into p: sub-blocks 2c and 2c + 1 from the low and high
// nibbles of quants 32c .. 32c + 31. The 6-bit scales and minimums are unpacked as in
// Q4_KScaleBytes, but for all rows at once from the transposed scale bytes, so each sub-block's
// d * scale and -dmin * min come out as vectors in lane order.
HWY_INLINE void PanelQ4_K(const uint8_t* const* rows, int64_t nblk, Panel& p) {
  const DI32 di32;
  const DF df;
  const int64_t L = int64_t(hn::Lanes(di32));
  const auto m6 = hn::Set(di32, 0x3f3f3f3f), m4 = hn::Set(di32, 0x0f0f0f0f);
  const auto top = hn::Set(di32, 0x30303030), byte = hn::Set(di32, 0xff);
  for (int64_t s = 0; s < nblk / 8; ++s) {
    const int64_t at = s * int64_t(sizeof(BlockQ4_K));
    for (int c = 0; c < 4; ++c) {
      int32_t* u = p.u.data() + 8 * (8 * s + 2 * c) * L;
      for (int h = 0; h < 2; ++h) {
        hn::Vec<DI32> v[4];
        TransposeQuads(rows, at + offsetof(BlockQ4_K, qs) + 32 * c + 16 * h, v);
        StoreNibbles(v, 4 * h, u, u + 8 * L);
      }
    }
    hn::Vec<DI32> w[4];  // w[0]: d and dmin; w[1..3]: the 12 scale bytes
    TransposeQuads(rows, at, w);
    const hn::Vec<DI32> packed[4] = {
        hn::And(w[1], m6), hn::Or(hn::And(w[3], m4), hn::And(hn::ShiftRight<2>(w[1]), top)),
        hn::And(w[2], m6),
        hn::Or(hn::And(hn::ShiftRight<4>(w[3]), m4), hn::And(hn::ShiftRight<2>(w[2]), top))};
    const auto d = HalfScales(rows, at + offsetof(BlockQ4_K, d));
    const auto dmin = hn::Neg(HalfScales(rows, at + offsetof(BlockQ4_K, dmin)));
    for (int j = 0; j < 8; ++j) {
      const int bits = 8 * (j % 4);
      const auto sc = hn::And(hn::ShiftRightSame(packed[j / 4], bits), byte);
      const auto mn = hn::And(hn::ShiftRightSame(packed[2 + j / 4], bits), byte);
      hn::StoreU(hn::Mul(hn::ConvertTo(df, sc), d), df, p.sa.data() + (8 * s + j) * L);
      hn::StoreU(hn::Mul(hn::ConvertTo(df, mn), dmin), df, p.oa.data() + (8 * s + j) * L);
    }
  }
}

// Q8_0 blocks [0, nblk) into p: signed values stored as q + 128 (offset -128 d).
HWY_INLINE void PanelQ8_0(const uint8_t* const* rows, int64_t nblk, Panel& p) {
  const DI32 di32;
  const DF df;
  const int64_t L = int64_t(hn::Lanes(di32));
  const auto flip = hn::Set(di32, int32_t(0x80808080u));
  for (int64_t b = 0; b < nblk; ++b) {
    const int64_t at = b * int64_t(sizeof(BlockQ8_0));
    int32_t* u = p.u.data() + 8 * b * L;
    for (int h = 0; h < 2; ++h) {
      hn::Vec<DI32> v[4];
      TransposeQuads(rows, at + offsetof(BlockQ8_0, qs) + 16 * h, v);
      for (int j = 0; j < 4; ++j) hn::StoreU(hn::Xor(v[j], flip), di32, u + (4 * h + j) * L);
    }
    const auto d = HalfScales(rows, at);
    hn::StoreU(d, df, p.sa.data() + b * L);
    hn::StoreU(hn::Mul(d, hn::Set(df, -128.0f)), df, p.oa.data() + b * L);
  }
}

// Q6_K super-blocks [0, nblk / 8) into p. Half h (values 128h ..) of a super-block: value l of
// its block g takes 4 bits of ql[64h + 32(g % 2) + l] (low nibble for g < 2, high for g >= 2)
// and bits 2g, 2g + 1 of qh[32h + l]. Scale per 16 values: d * scales[k], offset -32 times it.
HWY_INLINE void PanelQ6_K(const uint8_t* const* rows, int64_t nblk, Panel& p) {
  const DI32 di32;
  const DF df;
  const hn::Rebind<int8_t, DF> di8x;  // L int8 scales, widened to L floats
  const int L = int(hn::Lanes(di32));
  const auto m4 = hn::Set(di32, 0x0f0f0f0f), m2 = hn::Set(di32, 0x03030303);
  Fit(p.sm, size_t(16 * L));
  const uint8_t* sm[16];
  for (int r = 0; r < L; ++r) sm[r] = reinterpret_cast<const uint8_t*>(p.sm.data() + 16 * r);
  for (int64_t s = 0; s < nblk / 8; ++s) {
    const int64_t at = s * int64_t(sizeof(BlockQ6_K));
    for (int h = 0; h < 2; ++h) {
      hn::Vec<DI32> ql[16], qh[8];  // ql[i]: dword i of the half's 64 ql bytes; qh the same
      for (int i = 0; i < 4; ++i) {
        hn::Vec<DI32> v[4];
        TransposeQuads(rows, at + offsetof(BlockQ6_K, ql) + 64 * h + 16 * i, v);
        for (int j = 0; j < 4; ++j) ql[4 * i + j] = v[j];
      }
      for (int i = 0; i < 2; ++i) {
        hn::Vec<DI32> v[4];
        TransposeQuads(rows, at + offsetof(BlockQ6_K, qh) + 32 * h + 16 * i, v);
        for (int j = 0; j < 4; ++j) qh[4 * i + j] = v[j];
      }
      int32_t* u = p.u.data() + 8 * (8 * s + 4 * h) * L;  // blocks 4h .. 4h + 3
      for (int j = 0; j < 8; ++j) {
        const auto a = ql[j], b = ql[8 + j], hi = qh[j];
        hn::StoreU(hn::Or(hn::And(a, m4), hn::ShiftLeft<4>(hn::And(hi, m2))), di32, u + j * L);
        hn::StoreU(hn::Or(hn::And(b, m4), hn::ShiftLeft<4>(hn::And(hn::ShiftRight<2>(hi), m2))),
                   di32, u + (8 + j) * L);
        hn::StoreU(hn::Or(hn::And(hn::ShiftRight<4>(a), m4),
                          hn::ShiftLeft<4>(hn::And(hn::ShiftRight<4>(hi), m2))),
                   di32, u + (16 + j) * L);
        hn::StoreU(hn::Or(hn::And(hn::ShiftRight<4>(b), m4),
                          hn::ShiftLeft<4>(hn::And(hn::ShiftRight<6>(hi), m2))),
                   di32, u + (24 + j) * L);
      }
    }
    for (int r = 0; r < L; ++r) {
      const auto& blk = *reinterpret_cast<const BlockQ6_K*>(rows[r] + at);
      const auto d = hn::Set(df, fp16_to_float(blk.d));
      for (int k = 0; k < 16; k += L) {
        const auto sc = hn::ConvertTo(df, hn::PromoteTo(di32, hn::LoadU(di8x, blk.scales + k)));
        hn::StoreU(hn::Mul(sc, d), df, p.sm.data() + 16 * r + k);
      }
    }
    float t[16 * 16];  // vector k: scale of values 16k .. 16k + 15
    TransposeRows(sm, 64, t);
    for (int b = 0; b < 8; ++b) {
      const auto sa = hn::LoadU(df, t + 2 * b * L), sb = hn::LoadU(df, t + (2 * b + 1) * L);
      const auto minus32 = hn::Set(df, -32.0f);
      hn::StoreU(sa, df, p.sa.data() + (8 * s + b) * L);
      hn::StoreU(sb, df, p.sb.data() + (8 * s + b) * L);
      hn::StoreU(hn::Mul(sa, minus32), df, p.oa.data() + (8 * s + b) * L);
      hn::StoreU(hn::Mul(sb, minus32), df, p.ob.data() + (8 * s + b) * L);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Packed panels (quant_dot.hpp: pack_rows): the panel kernel's layout made once at load, so a
// call reads its weights in place instead of gathering L rows (transposes and scalar scale
// loads). Per group of L rows, blocks in column order, each as the 4 transposed quad vectors
// exactly as TransposeQuads yields them (nibbles still paired: the tile splits them), then d
// (Q4_1: d and m) as L fp16 in lane order: the file's size. Q4_0 and Q4_1 only: packed Q4_K
// and Q8_0 measured no faster on 7B shapes, and Q8_0 slower at one token.

// The fp16 bits at byte off of each row, in lane order, to out.
HWY_INLINE uint8_t* PackHalves(const uint8_t* const* rows, int64_t off, uint8_t* out) {
  const int L = int(hn::Lanes(DI32()));
  for (int l = 0; l < L; ++l) std::memcpy(out + 2 * l, rows[PanelRowOfLane(l, L)] + off, 2);
  return out + 2 * L;
}

HWY_INLINE uint8_t* PackQuads(const hn::Vec<DI32> (&v)[4], uint8_t* out) {
  const DI32 di32;
  const int64_t L = int64_t(hn::Lanes(di32));
  for (int j = 0; j < 4; ++j) hn::StoreU(v[j], di32, reinterpret_cast<int32_t*>(out) + j * L);
  return out + 16 * L;
}

HWY_INLINE hn::Vec<DF> LoadHalves(const uint8_t* in) {
  const hn::Rebind<hwy::float16_t, DF> dh;
  return hn::PromoteTo(DF(), hn::LoadU(dh, reinterpret_cast<const hwy::float16_t*>(in)));
}

HWY_INLINE void LoadQuads(const uint8_t* in, hn::Vec<DI32> (&v)[4]) {
  const DI32 di32;
  const int64_t L = int64_t(hn::Lanes(di32));
  for (int j = 0; j < 4; ++j) v[j] = hn::LoadU(di32, reinterpret_cast<const int32_t*>(in) + j * L);
}

// Bytes of one packed block for L lanes.
HWY_INLINE int64_t PackedUnitBytes(TT t, int64_t L) {
  switch (t) {
    case TT::Q4_0:
      return 18 * L;
    case TT::Q4_1:
      return 20 * L;
    default:
      return 0;
  }
}

// Blocks [0, nblk) of rows (pointers to the first block) packed to out.
HWY_INLINE void PackChunk(TT t, const uint8_t* const* rows, int64_t nblk, uint8_t* out) {
  const bool min = t == TT::Q4_1;
  const int64_t bytes = min ? sizeof(BlockQ4_1) : sizeof(BlockQ4_0);
  const int64_t qs = min ? offsetof(BlockQ4_1, qs) : offsetof(BlockQ4_0, qs);
  for (int64_t b = 0; b < nblk; ++b) {
    hn::Vec<DI32> v[4];
    TransposeQuads(rows, b * bytes + qs, v);
    out = PackHalves(rows, b * bytes, PackQuads(v, out));
    if (min) out = PackHalves(rows, b * bytes + 2, out);
  }
}

// The packed blocks [0, nblk) at in as PanelQ4 prepares them: bytes to u_out (unless null:
// the tile reads them in place), scales and offsets to sa and oa.
HWY_INLINE void UnpackChunk(TT t, const uint8_t* in, int64_t nblk, int32_t* u_out, float* sa,
                            float* oa) {
  const DF df;
  const int64_t L = int64_t(hn::Lanes(df));
  const bool min = t == TT::Q4_1;
  for (int64_t b = 0; b < nblk; ++b, in += PackedUnitBytes(t, L)) {
    if (u_out) {
      hn::Vec<DI32> v[4];
      LoadQuads(in, v);
      StoreNibbles(v, 0, u_out + 8 * b * L, u_out + (8 * b + 4) * L);
    }
    const auto d = LoadHalves(in + 16 * L);
    hn::StoreU(d, df, sa + b * L);
    hn::StoreU(min ? LoadHalves(in + 18 * L) : hn::Mul(d, hn::Set(df, -8.0f)), df, oa + b * L);
  }
}

// acc + u . (the 4 int8 values at q, in every lane). On VNNI the broadcast is the instruction's
// memory operand: no register and no separate load for it.
template <bool kWide>
HWY_INLINE hn::Vec<DI32> DotQuadBroadcast(hn::Vec<DU8> u, const int32_t* q, hn::Vec<DI32> acc) {
#if HWY_TARGET == HWY_AVX3_DL
  auto r = acc.raw;
  asm("vpdpbusd %2%{1to16%}, %1, %0" : "+v"(r) : "v"(u.raw), "m"(*q));
  return hn::Vec<DI32>{r};
#else
  const DI32 di32;
  const auto v = hn::BitCast(DI8(), hn::Set(di32, *q));
  if constexpr (kWide) {
    return DotQuadAny(u, v, acc);
  } else {
    return DotQuadSmall(u, v, acc);
  }
#endif
}

// T tokens of a group of g times the panel's nblk blocks, added to acc (per token, L sums in
// lane order). q, d, sa, sb, sum: the first token's values in the grouped layout
// (QuantizedActs::gq) from the chunk's first block, so every activation is read at a fixed offset
// from one pointer per step.
// Where a tile reads the weights' bytes: the panel's u (prepared from the file), or the packed
// panels in place, whose nibbles are split here (low nibbles: vectors 0-3, high: 4-7).
enum class Quads { kPanel, kPacked };

// Vector j of block b's bytes. src: the panel's u, or the chunk's first packed block.
template <Quads S>
HWY_INLINE hn::Vec<DU8> QuadVector(const uint8_t* src, int64_t unit, int64_t b, int j) {
  const DU8 du8;
  const int64_t L = int64_t(hn::Lanes(DI32()));
  if constexpr (S == Quads::kPanel) {
    return hn::LoadU(du8, src + (8 * b + j) * 4 * L);
  } else {
    const auto m4 = hn::Set(du8, uint8_t(0x0f));
    const auto v = hn::LoadU(du8, src + b * unit + 4 * (j % 4) * L);
    return j < 4 ? hn::And(v, m4)
                 : hn::And(hn::BitCast(du8, hn::ShiftRight<4>(hn::BitCast(DI32(), v))), m4);
  }
}

// kSpan: the activations' scale is shared by 8 blocks (QuantizedActs::span 256, not with Q6_K's
// halves), so a block's sums are weighted by the weights' scale alone and by the activation
// scale once per 8 blocks: one float multiply fewer per block and token, and vpdpbusd shares
// its ports with the float multiplies (a 7B-shaped Q4_K product 1.04-1.09x the rate).
template <int T, bool kWide, bool kHalves, Quads S, bool kSpan>
HWY_INLINE void PanelTile(const Panel& p, const uint8_t* src, int64_t unit, int64_t nblk,
                          const int32_t* q, int64_t g, const float* d, const float* sa,
                          const float* sb, const float* sum, float* acc_mem, bool first) {
  static_assert(!(kSpan && kHalves), "Q6_K's per-16 scales take the per-block sums");
  const DI32 di32;
  const DF df;
  const int64_t L = int64_t(hn::Lanes(di32));
  hn::Vec<DF> acc[T], part[T];  // part: the current span's sums, before its activation scale
  for (int k = 0; k < T; ++k) {
    acc[k] = first ? hn::Zero(df) : hn::LoadU(df, acc_mem + k * L);
    part[k] = hn::Zero(df);
  }
  for (int64_t b = 0; b < nblk; ++b, q += 8 * g, d += g, sa += g, sb += g, sum += g) {
    const auto ws = hn::LoadU(df, p.sa.data() + b * L);
    hn::Vec<DI32> ia[T];
    for (int k = 0; k < T; ++k) ia[k] = hn::Zero(di32);
    for (int j = 0; j < 8; ++j) {
      const auto u = QuadVector<S>(src, unit, b, j);
      const int32_t* qj = q + j * g;
      for (int k = 0; k < T; ++k) ia[k] = DotQuadBroadcast<kWide>(u, qj + k, ia[k]);
      if (kHalves && j == 3) {  // Q6_K: the first 16 values have their own scale
        for (int k = 0; k < T; ++k) {
          acc[k] = hn::MulAdd(hn::ConvertTo(df, ia[k]), hn::Mul(ws, hn::Set(df, d[k])), acc[k]);
          ia[k] = hn::Zero(di32);
        }
      }
    }
    const auto ws2 = kHalves ? hn::LoadU(df, p.sb.data() + b * L) : ws;
    const auto wo = hn::LoadU(df, p.oa.data() + b * L);
    if constexpr (kSpan) {
      for (int k = 0; k < T; ++k) {
        part[k] = hn::MulAdd(hn::ConvertTo(df, ia[k]), ws, part[k]);
        acc[k] = hn::MulAdd(wo, hn::Set(df, sum[k]), acc[k]);  // sum holds its scale already
      }
      if (b % 8 == 7 || b + 1 == nblk) {  // a span ends (chunks start on span boundaries)
        for (int k = 0; k < T; ++k) {
          acc[k] = hn::MulAdd(part[k], hn::Set(df, d[k]), acc[k]);
          part[k] = hn::Zero(df);
        }
      }
      continue;
    }
    for (int k = 0; k < T; ++k) {
      acc[k] = hn::MulAdd(hn::ConvertTo(df, ia[k]), hn::Mul(ws2, hn::Set(df, d[k])), acc[k]);
      if constexpr (kHalves) {
        acc[k] =
            hn::MulAdd(wo, hn::Set(df, sa[k]),
                       hn::MulAdd(hn::LoadU(df, p.ob.data() + b * L), hn::Set(df, sb[k]), acc[k]));
      } else {
        acc[k] = hn::MulAdd(wo, hn::Set(df, sum[k]), acc[k]);
      }
    }
  }
  for (int k = 0; k < T; ++k) hn::StoreU(acc[k], df, acc_mem + k * L);
}

// Tokens per tile: T int32 sums and T float sums stay in registers.
constexpr int kPanelTokens = HWY_TARGET <= HWY_AVX3 ? 8 : 4;

template <bool kWide, bool kHalves, Quads S, bool kSpan = false>
HWY_INLINE void PanelTimesTokens(const Panel& p, const uint8_t* src, int64_t unit, int64_t nblk,
                                 const QuantizedActs& a, int64_t cb, float* acc) {
  const int64_t L = int64_t(hn::Lanes(DI32()));
  for (int64_t t = 0; t < a.n; t += kTokenGroup) {
    const int64_t g = std::min(kTokenGroup, a.n - t);
    const int32_t* q = a.gq.data() + t * a.stride / 4 + 8 * cb * g;
    const int64_t s = t * a.stride / 32 + cb * g;
    const float *d = a.gd.data() + s, *sa = a.gsa.data() + s, *sb = a.gsb.data() + s,
                *sum = a.gsum.data() + s;
    int64_t k = 0;
    auto tile = [&](auto tokens) {
      constexpr int T = decltype(tokens)::value;
      for (; k + T <= g; k += T)
        PanelTile<T, kWide, kHalves, S, kSpan>(p, src, unit, nblk, q + k, g, d + k, sa + k, sb + k,
                                               sum + k, acc + (t + k) * L, cb == 0);
    };
    tile(std::integral_constant<int, kPanelTokens>());
    if constexpr (kPanelTokens > 4) tile(std::integral_constant<int, 4>());
    tile(std::integral_constant<int, 2>());
    tile(std::integral_constant<int, 1>());
  }
}

// Rows [j, j + nr) (nr <= L) of w times every token into y.
HWY_INLINE void PanelRows(const Weights& w, const int32_t* rows, int64_t j, int64_t nr,
                          const QuantizedActs& a, float* y, int64_t ldy, Panel& p) {
  const DF df;
  const int L = int(hn::Lanes(df));
  const BlockGeometry g = block_geometry(w.type);
  const int64_t rb = w.cols / g.elems * g.bytes;
  const auto* base = static_cast<const uint8_t*>(w.data);
  const uint8_t* row[16];  // missing rows repeat the last one; their lanes are not stored
  for (int r = 0; r < L; ++r) {
    const int64_t i = j + std::min<int64_t>(r, nr - 1);
    row[r] = base + (rows ? rows[i] : i) * rb;
  }
  Fit(p.acc, size_t(a.n * L));  // the first chunk's tiles start it from zero
  const int64_t chunk_blocks = kPanelCols / 32;
  Fit(p.u, size_t(chunk_blocks * 8 * L));
  for (auto* v : {&p.sa, &p.sb, &p.oa, &p.ob}) Fit(*v, size_t(chunk_blocks * L));
  const uint8_t* packed = nullptr;  // this group's packed panels, if the weights have them
  if (w.packed && !rows && j % L == 0)
    packed = static_cast<const uint8_t*>(w.packed) +
             j / L * (w.cols / g.elems) * PackedUnitBytes(w.type, L);
  for (int64_t c0 = 0; c0 < w.cols; c0 += kPanelCols) {
    const int64_t cols = std::min(kPanelCols, w.cols - c0), nblk = cols / 32;
    if (packed) {  // scales into the panel; the tile reads the weight bytes in place
      const int64_t unit = PackedUnitBytes(w.type, L);
      const uint8_t* src = packed + c0 / g.elems * unit;
      UnpackChunk(w.type, src, nblk, nullptr, p.sa.data(), p.oa.data());
      PanelTimesTokens<false, false, Quads::kPacked>(p, src, unit, nblk, a, c0 / 32, p.acc.data());
      continue;
    }
    const uint8_t* at[16];
    for (int r = 0; r < L; ++r) at[r] = row[r] + c0 / g.elems * g.bytes;
    switch (w.type) {
      case TT::Q4_0:
        PanelQ4<false>(at, nblk, p);
        break;
      case TT::Q4_1:
        PanelQ4<true>(at, nblk, p);
        break;
      case TT::Q4_K:
        PanelQ4_K(at, nblk, p);
        break;
      case TT::Q8_0:
        PanelQ8_0(at, nblk, p);
        break;
      default:  // Q6_K: int_dot_supported() keeps other types away
        PanelQ6_K(at, nblk, p);
    }
    const auto* u = reinterpret_cast<const uint8_t*>(p.u.data());
    if (w.type == TT::Q8_0) {
      PanelTimesTokens<true, false, Quads::kPanel>(p, u, 0, nblk, a, c0 / 32, p.acc.data());
    } else if (w.type == TT::Q6_K) {
      PanelTimesTokens<false, true, Quads::kPanel>(p, u, 0, nblk, a, c0 / 32, p.acc.data());
    } else if (a.span == 256) {
      PanelTimesTokens<false, false, Quads::kPanel, true>(p, u, 0, nblk, a, c0 / 32, p.acc.data());
    } else {
      PanelTimesTokens<false, false, Quads::kPanel>(p, u, 0, nblk, a, c0 / 32, p.acc.data());
    }
  }
  HWY_ALIGN int32_t lane[16];  // row r's lane
  for (int l = 0; l < L; ++l) lane[PanelRowOfLane(l, L)] = l;
  const auto order = hn::SetTableIndices(df, lane);
  HWY_ALIGN float out[16];
  for (int64_t t = 0; t < a.n; ++t) {
    const auto v = hn::TableLookupLanes(hn::LoadU(df, p.acc.data() + t * L), order);
    if (nr == L) {
      hn::StoreU(v, df, y + t * ldy + j);
    } else {
      hn::Store(v, df, out);
      std::copy_n(out, nr, y + t * ldy + j);
    }
  }
}
#endif  // HWY_TARGET != HWY_SCALAR

void DotRowsIntImpl(const Weights& w, const int32_t* rows, int64_t j0, int64_t j1,
                    const QuantizedActs& a, float* y, int64_t ldy, RowScratch& rs) {
  const BlockGeometry g = block_geometry(w.type);
  const int64_t rb = w.cols / g.elems * g.bytes;
  const auto* base = static_cast<const uint8_t*>(w.data);
  const bool wide = w.type == TT::Q8_0;  // q + 128 reaches 255
#if HWY_TARGET != HWY_SCALAR
  // Packed weights take the panel kernel at any count, given the grouped activations.
  const bool packed = a.grouped && w.packed && !rows && j0 % int64_t(hn::Lanes(DI32())) == 0;
  if (a.n >= kPanelMinTokens || packed) {
    const int64_t L = int64_t(hn::Lanes(DI32()));
    for (int64_t j = j0; j < j1; j += L)
      PanelRows(w, rows, j, std::min(L, j1 - j), a, y, ldy, rs.panel);
    return;
  }
#endif
#if HWY_TARGET <= HWY_AVX3
  if (w.type == TT::Q4_0) return RowsDirect<TT::Q4_0>(base, rows, rb, j0, j1, w.cols, a, y, ldy);
  if (w.type == TT::Q4_1) return RowsDirect<TT::Q4_1>(base, rows, rb, j0, j1, w.cols, a, y, ldy);
  if (w.type == TT::Q8_0) return RowsDirect<TT::Q8_0>(base, rows, rb, j0, j1, w.cols, a, y, ldy);
  if (w.type == TT::Q4_K) {
    for (int64_t j = j0; j < j1; ++j) {
      const auto* row = reinterpret_cast<const BlockQ4_K*>(base + (rows ? rows[j] : j) * rb);
      for (int64_t t = 0; t < a.n; ++t)
        y[t * ldy + j] = DotQ4_KDirect(row, w.cols / 256, a.q.data() + t * a.stride,
                                       a.block_d.data() + t * a.stride / 32,
                                       a.scaled_sum16.data() + t * a.stride / 16);
    }
    return;
  }
#endif
  RowBuf& r = rs.plain;
  r.reset(a.stride);
  for (int64_t j = j0; j < j1; ++j) {
    Unpack(w.type, base + (rows ? rows[j] : j) * rb, w.cols, r);
    if (wide) {
      RowTimesAll<true>(r, a, y + j, ldy);
    } else {
      RowTimesAll<false>(r, a, y + j, ldy);
    }
  }
}

int64_t PanelLanes() {
#if HWY_TARGET == HWY_SCALAR
  return 0;
#else
  return int64_t(hn::Lanes(DI32()));
#endif
}

int64_t PackedGroupBytes(const Weights& w) {
#if HWY_TARGET == HWY_SCALAR
  (void)w;
  return 0;
#else
  const BlockGeometry g = block_geometry(w.type);
  return g.elems ? w.cols / g.elems * PackedUnitBytes(w.type, int64_t(hn::Lanes(DI32()))) : 0;
#endif
}

void PackGroups(const Weights& w, int64_t groups, uint8_t* out) {
#if HWY_TARGET == HWY_SCALAR
  (void)w, (void)groups, (void)out;
#else
  const int64_t L = int64_t(hn::Lanes(DI32()));
  const BlockGeometry g = block_geometry(w.type);
  const int64_t rb = w.cols / g.elems * g.bytes, unit = PackedUnitBytes(w.type, L);
  const auto* base = static_cast<const uint8_t*>(w.data);
  for (int64_t grp = 0; grp < groups; ++grp) {
    const uint8_t* row[16];  // missing rows repeat the last one, as in PanelRows
    for (int r = 0; r < L; ++r) row[r] = base + std::min(grp * L + r, w.rows - 1) * rb;
    PackChunk(w.type, row, w.cols / 32, out + grp * (w.cols / g.elems) * unit);
  }
#endif
}

// Rows [r0, r0 + nr), columns [c0, c0 + nc) (whole blocks) of packed weights to float,
// transposed: out[c * ld + r] is row r0 + r at column c0 + c, which sgemm takes as is. The file's
// values to the bit, since d * u + offset is exact in float (15 significant bits at most).
// A panel's lane holds a row, so each value of a block comes out as one vector of L rows.
void DecodePacked(const Weights& w, int64_t r0, int64_t nr, int64_t c0, int64_t nc, float* out,
                  int64_t ld) {
#if HWY_TARGET == HWY_SCALAR
  (void)w, (void)r0, (void)nr, (void)c0, (void)nc, (void)out, (void)ld;  // never packed
#else
  const DI32 di32;
  const DF df;
  const int64_t L = int64_t(hn::Lanes(di32));
  const int64_t unit = PackedUnitBytes(w.type, L), group = w.cols / 32 * unit;
  HWY_ALIGN int32_t u[8 * 16], lane[16];
  HWY_ALIGN float sa[16], oa[16], tmp[16];
  for (int l = 0; l < L; ++l) lane[PanelRowOfLane(l, L)] = l;
  const auto order = hn::SetTableIndices(df, lane);  // lanes into row order
  const auto byte = hn::Set(di32, 0xff);
  for (int64_t grp = r0 / L; grp * L < r0 + nr; ++grp) {
    const uint8_t* base = static_cast<const uint8_t*>(w.packed) + grp * group;
    const int64_t first = std::max(r0, grp * L), last = std::min(r0 + nr, grp * L + L);
    const bool whole = first == grp * L && last == grp * L + L;
    for (int64_t c = c0; c < c0 + nc; c += 32) {
      UnpackChunk(w.type, base + c / 32 * unit, 1, u, sa, oa);
      const auto s = hn::Load(df, sa), o = hn::Load(df, oa);
      for (int j = 0; j < 8; ++j) {
        const auto v = hn::Load(di32, u + j * L);
        for (int i = 0; i < 4; ++i) {
          const auto x = hn::ConvertTo(df, hn::And(hn::ShiftRightSame(v, 8 * i), byte));
          const auto rows = hn::TableLookupLanes(hn::MulAdd(x, s, o), order);
          float* dst = out + (c - c0 + 4 * j + i) * ld + (first - r0);
          if (whole) {
            hn::StoreU(rows, df, dst);
          } else {
            hn::Store(rows, df, tmp);
            std::copy_n(tmp + (first - grp * L), last - first, dst);
          }
        }
      }
    }
  }
#endif
}

const char* IntTargetName() {
  return hwy::TargetName(HWY_TARGET);
}

bool DirectFewTokens() {
  return HWY_TARGET <= HWY_AVX3;
}

}  // namespace HWY_NAMESPACE
}  // namespace meadow::tensor::detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace meadow::tensor::detail {

HWY_EXPORT(DotRowsIntImpl);

HWY_EXPORT(IntTargetName);

void reserve_rows(RowScratch& rs, int64_t n, int64_t cols) {
  const size_t stride = size_t(quant_stride(cols)), blocks = size_t(kPanelCols / 32);
  const size_t lanes = size_t(kPanelMaxLanes);
  rs.plain.u.reserve(stride / 4);
  rs.plain.scale.reserve(stride / 4);
  rs.plain.offset.reserve(stride / 16);
  Panel& p = rs.panel;
  p.u.reserve(blocks * 8 * lanes);
  for (auto* v : {&p.sa, &p.sb, &p.oa, &p.ob}) v->reserve(blocks * lanes);
  p.acc.reserve(size_t(n) * lanes);
  p.sm.reserve(16 * lanes);
}

bool int_dot_supported(gguf::TensorType t) {
  using TT = gguf::TensorType;
  return t == TT::Q4_0 || t == TT::Q4_1 || t == TT::Q4_K || t == TT::Q6_K || t == TT::Q8_0;
}

void dot_rows_int(const Weights& w, const int32_t* rows, int64_t j0, int64_t j1,
                  const QuantizedActs& a, float* y, int64_t ldy, RowScratch* scratch) {
  RowScratch own;
  HWY_DYNAMIC_DISPATCH(DotRowsIntImpl)(w, rows, j0, j1, a, y, ldy, scratch ? *scratch : own);
}

const char* int_target_name() {
  return HWY_DYNAMIC_DISPATCH(IntTargetName)();
}

HWY_EXPORT(DirectFewTokens);
HWY_EXPORT(PackedGroupBytes);
HWY_EXPORT(PackGroups);
HWY_EXPORT(PanelLanes);
HWY_EXPORT(DecodePacked);

void decode_packed(const Weights& w, int64_t r0, int64_t nr, int64_t c0, int64_t nc, float* out,
                   int64_t ld) {
  HWY_DYNAMIC_DISPATCH(DecodePacked)(w, r0, nr, c0, nc, out, ld);
}

int64_t packed_bytes(const Weights& w) {
  using TT = gguf::TensorType;
  const bool type = w.type == TT::Q4_0 || w.type == TT::Q4_1;
  const int64_t lanes = HWY_DYNAMIC_DISPATCH(PanelLanes)();
  if (!type || lanes == 0 || w.rows <= 0) return 0;
  return (w.rows + lanes - 1) / lanes * HWY_DYNAMIC_DISPATCH(PackedGroupBytes)(w);
}

void pack_rows(const Weights& w, void* out) {
  const int64_t lanes = HWY_DYNAMIC_DISPATCH(PanelLanes)();
  if (lanes == 0) throw Error("pack_rows: no packed panels on this machine");
  HWY_DYNAMIC_DISPATCH(PackGroups)(w, (w.rows + lanes - 1) / lanes, static_cast<uint8_t*>(out));
}

int64_t packed_group_rows() {
  return HWY_DYNAMIC_DISPATCH(PanelLanes)();
}

bool direct_few_tokens() {
  return HWY_DYNAMIC_DISPATCH(DirectFewTokens)();
}

}  // namespace meadow::tensor::detail
#endif
