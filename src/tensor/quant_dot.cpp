// Integer dot products of quantized weight rows with int8 block-quantized activations
// (tensor/quant_dot.hpp), compiled once per SIMD target by Highway and dispatched at run time.
//
// Every weight type is first unpacked, one row at a time, into the same shape:
//   w_i = lane_scale[i / 4] * u_i + offset[i / 16],   u_i an unsigned byte,
// so a single kernel serves all types: per vector it forms int32 sums of 4 products u * q (one
// group of 4 values shares both scales), converts them to float once, and multiplies by the
// weight's and the activation's scales. The offsets meet the activations' per-16 sums in a
// short float dot product (Q4_0's -8 d, Q4_1's m, Q4_K's -dmin m, Q6_K's -32 d sc, Q8_0's
// -128 d after storing its signed values as q + 128).
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
#include <cstring>
#include <vector>

#include "meadow/gguf.hpp"
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
template <bool kPlain>
HWY_INLINE void SetHalf(RowBuf& r, int64_t b, int h, float s, float o) {
  if constexpr (kPlain) {
    const hn::CappedTag<float, 4> d4;
    const int64_t at = 8 * b + 4 * h;
    for (int64_t i = 0; i < 4; i += int64_t(hn::Lanes(d4)))
      hn::StoreU(hn::Set(d4, s), d4, r.scale.data() + at + i);
    r.offset[size_t(2 * b + h)] = o;
  } else {
    (h ? r.sb : r.sa)[size_t(b)] = s;
    (h ? r.ob : r.oa)[size_t(b)] = o;
  }
}

// A 32-value block with one scale d and one offset o for both halves.
template <bool kPlain>
HWY_INLINE void SetBlockScales(RowBuf& r, int64_t b, float d, float o) {
  if constexpr (kPlain) {
    const hn::CappedTag<float, 8> d8;
    for (int64_t i = 0; i < 8; i += int64_t(hn::Lanes(d8)))
      hn::StoreU(hn::Set(d8, d), d8, r.scale.data() + 8 * b + i);
    r.offset[size_t(2 * b)] = r.offset[size_t(2 * b + 1)] = o;
  } else {
    r.sa[size_t(b)] = r.sb[size_t(b)] = d;
    r.oa[size_t(b)] = r.ob[size_t(b)] = o;
  }
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

template <bool kPlain>
HWY_INLINE void UnpackQ4_0(const BlockQ4_0* b, int64_t nb, RowBuf& r) {
  for (int64_t i = 0; i < nb; ++i) {
    UnpackNibbles16(b[i].qs, Bytes(r.u) + 32 * i);
    const float d = fp16_to_float(b[i].d);
    SetBlockScales<kPlain>(r, i, d, -8.0f * d);
  }
}

template <bool kPlain>
HWY_INLINE void UnpackQ4_1(const BlockQ4_1* b, int64_t nb, RowBuf& r) {
  for (int64_t i = 0; i < nb; ++i) {
    UnpackNibbles16(b[i].qs, Bytes(r.u) + 32 * i);
    SetBlockScales<kPlain>(r, i, fp16_to_float(b[i].d), fp16_to_float(b[i].m));
  }
}

// Signed q stored as q + 128 (flip the top bit); the offset takes the 128 back out.
template <bool kPlain>
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
    SetBlockScales<kPlain>(r, i, d, -128.0f * d);
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
template <bool kPlain>
HWY_INLINE void Q4_KScales(const BlockQ4_K& blk, int64_t i, RowBuf& r) {
#if HWY_TARGET <= HWY_AVX3
  if constexpr (!kPlain) {
    const __m512 v = Q4_KScaleVector(blk);
    const __m256 sc = _mm512_castps512_ps256(v), off = _mm512_extractf32x8_ps(v, 1);
    _mm256_storeu_ps(r.sa.data() + 8 * i, sc);
    _mm256_storeu_ps(r.sb.data() + 8 * i, sc);
    _mm256_storeu_ps(r.oa.data() + 8 * i, off);
    _mm256_storeu_ps(r.ob.data() + 8 * i, off);
    return;
  }
#endif
  const float d = fp16_to_float(blk.d);
  const float dmin = fp16_to_float(blk.dmin);
  uint8_t sm[16];
  Q4_KScaleBytes(blk, sm);
  for (int j = 0; j < 8; ++j)
    SetBlockScales<kPlain>(r, 8 * i + j, d * float(sm[j]), -dmin * float(sm[8 + j]));
}

template <bool kPlain>
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
    Q4_KScales<kPlain>(b[i], i, r);
  }
}

// 6-bit values (0..63, centred on 32) with one int8 scale per 16 values.
template <bool kPlain>
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
      SetHalf<kPlain>(r, 8 * i + k / 2, k % 2, s, -32.0f * s);
    }
  }
}

template <bool kPlain>
HWY_INLINE void Unpack(TT type, const uint8_t* row, int64_t cols, RowBuf& r) {
  switch (type) {
    case TT::Q4_0:
      return UnpackQ4_0<kPlain>(reinterpret_cast<const BlockQ4_0*>(row), cols / 32, r);
    case TT::Q4_1:
      return UnpackQ4_1<kPlain>(reinterpret_cast<const BlockQ4_1*>(row), cols / 32, r);
    case TT::Q8_0:
      return UnpackQ8_0<kPlain>(reinterpret_cast<const BlockQ8_0*>(row), cols / 32, r);
    case TT::Q4_K:
      return UnpackQ4_K<kPlain>(reinterpret_cast<const BlockQ4_K*>(row), cols / 256, r);
    case TT::Q6_K:
      return UnpackQ6_K<kPlain>(reinterpret_cast<const BlockQ6_K*>(row), cols / 256, r);
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

// Interleaves rows of 32-value blocks: for each group of L blocks (L = int32 lanes of d), dword
// j of every block goes to vector j of the group. Bytes [b0, b1) of src (int32 words; b1 - b0 a
// multiple of 32 L) go to the same bytes of dst.
template <class D32>
HWY_INLINE void InterleaveBlocks(D32 di32, const int32_t* src, int64_t b0, int64_t b1,
                                 int32_t* dst) {
  const int64_t L = int64_t(hn::Lanes(di32));
  const auto base_idx = hn::Mul(hn::Iota(di32, 0), hn::Set(di32, 8));  // dword 0 of block l
  for (int64_t g = b0 / 4; g < b1 / 4; g += 8 * L) {
    for (int j = 0; j < 8; ++j) {
      const auto v = hn::GatherIndex(di32, src + g, hn::Add(base_idx, hn::Set(di32, j)));
      hn::StoreU(v, di32, dst + g + L * j);
    }
  }
}

#if HWY_TARGET <= HWY_AVX3
// AVX-512: the same regrouping by register shuffles instead of gathers, which cost a weight row
// a quarter of its time at 20 tokens. Per group of 16 blocks (8 vectors of 2 blocks), a 4 x 4
// dword transpose in every 128-bit unit of 4 vectors, then 128-bit units picked across the two
// halves. Vector j still holds dword j of every block (so vectors 0-3 hold the first 16 values,
// as Q6_K needs), but lanes 0-15 hold blocks 0 2 4 6 1 3 5 7 8 10 12 14 9 11 13 15 of the
// group; BlockSlot puts the block scales in the same lanes.
constexpr int kLaneOfBlock[16] = {0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15};

// One group: x[i] holds blocks 2i and 2i + 1; 8 vectors to dst.
HWY_INLINE void TransposeGroup16(const __m512i (&x)[8], int32_t* dst) {
  __m512i y[8];  // y[4h + k]: dword k of each 128-bit unit's 4 source vectors, half h
  for (int h = 0; h < 2; ++h) {
    const __m512i* v = x + 4 * h;
    const __m512i t0 = _mm512_unpacklo_epi32(v[0], v[1]);
    const __m512i t1 = _mm512_unpackhi_epi32(v[0], v[1]);
    const __m512i t2 = _mm512_unpacklo_epi32(v[2], v[3]);
    const __m512i t3 = _mm512_unpackhi_epi32(v[2], v[3]);
    y[4 * h + 0] = _mm512_unpacklo_epi64(t0, t2);
    y[4 * h + 1] = _mm512_unpackhi_epi64(t0, t2);
    y[4 * h + 2] = _mm512_unpacklo_epi64(t1, t3);
    y[4 * h + 3] = _mm512_unpackhi_epi64(t1, t3);
  }
  for (int k = 0; k < 4; ++k) {
    // Units 0 and 2 hold dwords 0-3 of their blocks, units 1 and 3 dwords 4-7.
    _mm512_storeu_si512(dst + 16 * k,
                        _mm512_shuffle_i32x4(y[k], y[4 + k], _MM_SHUFFLE(2, 0, 2, 0)));
    _mm512_storeu_si512(dst + 16 * (4 + k),
                        _mm512_shuffle_i32x4(y[k], y[4 + k], _MM_SHUFFLE(3, 1, 3, 1)));
  }
}

HWY_INLINE void InterleaveGroups16(const int32_t* src, int64_t bytes, int32_t* dst) {
  for (int64_t g = 0; g < bytes / 4; g += 128) {
    __m512i x[8];
    for (int i = 0; i < 8; ++i) x[i] = _mm512_loadu_si512(src + g + 16 * i);
    TransposeGroup16(x, dst + g);
  }
}

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

// Q4_K rows of whole groups (2 super-blocks each), nibbles split in registers and regrouped
// straight into dst: the row's bytes never pass through memory in the plain layout.
HWY_INLINE void UnpackInterleaveQ4_K(const BlockQ4_K* b, int64_t nb, RowBuf& r, int32_t* dst) {
  for (int64_t i = 0; i < nb; i += 2) {
    __m512i x[8];  // x[4s + 2m + k]: blocks 2(4s + 2m + k) and the next, as TransposeGroup16 reads
    for (int s = 0; s < 2; ++s) {
      for (int m = 0; m < 2; ++m) {
        __m512i u[2];
        Q4_KSubBlockPairs(b[i + s].qs, m, u);
        x[4 * s + 2 * m] = u[0];
        x[4 * s + 2 * m + 1] = u[1];
      }
      Q4_KScales<false>(b[i + s], i + s, r);
    }
    TransposeGroup16(x, dst + 64 * i);
  }
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
#endif

// Where block b's scale goes in the interleaved layout: the lane that holds its bytes.
HWY_INLINE int64_t BlockSlot(int64_t b, int64_t main_blocks) {
#if HWY_TARGET <= HWY_AVX3
  if (b < main_blocks) return (b & ~int64_t{15}) | kLaneOfBlock[b & 15];
#else
  (void)main_blocks;
#endif
  return b;
}

// The row's per-block scales and offsets into the lanes that hold their blocks' bytes.
HWY_INLINE void PlaceBlockScales(const RowBuf& r, int64_t main_blocks, int64_t blocks, RowBufI& d) {
  const float* from[4] = {r.sa.data(), r.sb.data(), r.oa.data(), r.ob.data()};
  float* to[4] = {d.scale_a.data(), d.scale_b.data(), d.offset_a.data(), d.offset_b.data()};
  int64_t b = 0;
#if HWY_TARGET <= HWY_AVX3
  // lane l takes block idx[l] of its group: InterleaveGroups16's order
  const __m512i idx = _mm512_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7, 8, 10, 12, 14, 9, 11, 13, 15);
  for (; b < main_blocks; b += 16)
    for (int k = 0; k < 4; ++k)
      _mm512_storeu_ps(to[k] + b, _mm512_permutexvar_ps(idx, _mm512_loadu_ps(from[k] + b)));
#endif
  for (; b < blocks; ++b) {
    const int64_t slot = BlockSlot(b, main_blocks);
    for (int k = 0; k < 4; ++k) to[k][slot] = from[k][b];
  }
}

// Full vectors for the groups of L blocks, 4-lane ones for the blocks after the last of those
// (a row of 18 blocks is 16 + 4 on AVX-512, not 32: SmolLM2's rows are 576 values).
using D4 = hn::CappedTag<int32_t, 4>;
HWY_INLINE void InterleaveRow(const int32_t* src, int64_t main_bytes, int64_t istride,
                              int32_t* dst) {
#if HWY_TARGET <= HWY_AVX3
  InterleaveGroups16(src, main_bytes, dst);
#else
  InterleaveBlocks(DI32(), src, 0, main_bytes, dst);
#endif
  InterleaveBlocks(D4(), src, main_bytes, istride, dst);
}

// A tile of R interleaved rows times T tokens over the groups in bytes [b0, b1), vectors of
// d's width, added to sum[i][k]. Each activation vector (read from L2: all tokens' rows do not
// fit L1) is loaded once and used for R rows, whose bytes come from L1; per group, row and
// token: 8 integer steps, then one float step for the products and one for the weight's
// offsets times the activation's block sums (two each for Q6_K, whose scale and offset change
// after 16 values).
template <int R, int T, bool kWide, bool kHalves, class D32>
HWY_INLINE void TileSums(D32 di32, const RowBufI* const* rb, const QuantizedActs& a, int64_t t0,
                         int64_t b0, int64_t b1, float (&sum)[R][T]) {
  const hn::Repartition<uint8_t, D32> du8;
  const hn::Repartition<int8_t, D32> di8;
  const hn::Repartition<float, D32> df;
  const int64_t L = int64_t(hn::Lanes(di32));
  const int64_t step = 4 * L;  // bytes per vector
  hn::Vec<decltype(df)> acc[R][T];
  for (int i = 0; i < R; ++i)
    for (int k = 0; k < T; ++k) acc[i][k] = hn::Zero(df);
  for (int64_t g = b0; g < b1; g += 32 * L) {
    for (int k = 0; k < T; ++k) {
      const int8_t* q = reinterpret_cast<const int8_t*>(a.qi.data()) + (t0 + k) * a.istride + g;
      hn::Vec<D32> ia[R], ib[R];
      for (int i = 0; i < R; ++i) ia[i] = ib[i] = hn::Zero(di32);
      for (int j = 0; j < 8; ++j) {
        const auto v = hn::LoadU(di8, q + j * step);
        for (int i = 0; i < R; ++i) {
          const auto u = hn::LoadU(du8, Bytes(rb[i]->u) + g + j * step);
          auto& s = (kHalves && j >= 4) ? ib[i] : ia[i];
          if constexpr (kWide) {
            s = DotQuadAny(u, v, s);
          } else {
            s = DotQuadSmall(u, v, s);
          }
        }
      }
      const int64_t slot = ((t0 + k) * a.istride + g) / 32;
      const auto as = hn::LoadU(df, a.block_scale.data() + slot);
      const auto sa = hn::LoadU(df, a.block_sum_a.data() + slot);
      const auto sb = hn::LoadU(df, a.block_sum_b.data() + slot);
      const auto sab = hn::Add(sa, sb);  // one offset for both halves (all but Q6_K)
      for (int i = 0; i < R; ++i) {
        const auto wa = hn::LoadU(df, rb[i]->scale_a.data() + g / 32);
        const auto oa = hn::LoadU(df, rb[i]->offset_a.data() + g / 32);
        acc[i][k] = hn::MulAdd(hn::ConvertTo(df, ia[i]), hn::Mul(wa, as), acc[i][k]);
        if constexpr (kHalves) {
          const auto wb = hn::LoadU(df, rb[i]->scale_b.data() + g / 32);
          const auto ob = hn::LoadU(df, rb[i]->offset_b.data() + g / 32);
          acc[i][k] = hn::MulAdd(hn::ConvertTo(df, ib[i]), hn::Mul(wb, as), acc[i][k]);
          acc[i][k] = hn::MulAdd(oa, sa, hn::MulAdd(ob, sb, acc[i][k]));
        } else {
          acc[i][k] = hn::MulAdd(oa, sab, acc[i][k]);
        }
      }
    }
  }
  for (int i = 0; i < R; ++i)
    for (int k = 0; k < T; ++k) sum[i][k] += hn::GetLane(hn::SumOfLanes(df, acc[i][k]));
}

// R rows times T tokens from t0: results to y[(t0 + k) * ldy + i].
template <int R, int T, bool kWide, bool kHalves>
HWY_INLINE void TileI(const RowBufI* const* rb, const QuantizedActs& a, int64_t t0, float* y,
                      int64_t ldy) {
  float sum[R][T] = {};
  TileSums<R, T, kWide, kHalves>(DI32(), rb, a, t0, 0, a.main_bytes, sum);
  if (a.istride > a.main_bytes) {
    TileSums<R, T, kWide, kHalves>(D4(), rb, a, t0, a.main_bytes, a.istride, sum);
  }
  for (int i = 0; i < R; ++i)
    for (int k = 0; k < T; ++k) y[(t0 + k) * ldy + i] = sum[i][k];
}

// R rows (already interleaved) times every token.
template <int R, bool kWide, bool kHalves>
HWY_INLINE void RowsTimesAllI(const RowBufI* const* rb, const QuantizedActs& a, float* y,
                              int64_t ldy) {
  constexpr int kT = 4;
  int64_t t = 0;
  for (; t + kT <= a.n; t += kT) TileI<R, kT, kWide, kHalves>(rb, a, t, y, ldy);
  for (; t < a.n; ++t) TileI<R, 1, kWide, kHalves>(rb, a, t, y, ldy);
}

template <int R>
HWY_INLINE void RowsTimesAllI(TT type, const RowBufI* const* rb, const QuantizedActs& a, float* y,
                              int64_t ldy) {
  if (type == TT::Q8_0) return RowsTimesAllI<R, true, false>(rb, a, y, ldy);  // q + 128: wide
  if (type == TT::Q6_K) return RowsTimesAllI<R, false, true>(rb, a, y, ldy);  // 16-value scales
  RowsTimesAllI<R, false, false>(rb, a, y, ldy);
}

// Rows per tile: 4 on AVX-512 (R * 4 accumulators + 2 R int sums fit its 32 registers).
constexpr int kTileRows = HWY_TARGET <= HWY_AVX3 ? 4 : 2;

void InterleaveActsImpl(QuantizedActs& a) {
  const int64_t L = int64_t(hn::Lanes(DI32()));
  a.group_lanes = L;
  a.main_bytes = a.cols / (32 * L) * (32 * L);
  a.istride = a.main_bytes + (a.cols - a.main_bytes + 127) / 128 * 128;
  a.qi.assign(size_t(a.n * a.istride / 4), 0);
  a.block_scale.assign(size_t(a.n * a.istride / 32), 0.0f);
  a.block_sum_a.assign(size_t(a.n * a.istride / 32), 0.0f);
  a.block_sum_b.assign(size_t(a.n * a.istride / 32), 0.0f);
  std::vector<int32_t>& row = a.row;  // one row, padded: reused across calls
  row.assign(size_t(a.istride / 4), 0);
  for (int64_t t = 0; t < a.n; ++t) {
    std::copy_n(reinterpret_cast<const uint8_t*>(a.q.data()) + t * a.stride, a.cols, Bytes(row));
    InterleaveRow(row.data(), a.main_bytes, a.istride, a.qi.data() + t * a.istride / 4);
    for (int64_t b = 0; b < a.cols / 32; ++b) {
      const size_t slot = size_t(t * a.istride / 32 + BlockSlot(b, a.main_bytes / 32));
      a.block_scale[slot] = a.lane_scale[size_t(t * a.stride / 4 + 8 * b)];
      a.block_sum_a[slot] = a.scaled_sum16[size_t(t * a.stride / 16 + 2 * b)];
      a.block_sum_b[slot] = a.scaled_sum16[size_t(t * a.stride / 16 + 2 * b + 1)];
    }
  }
}

#endif  // HWY_TARGET == HWY_SCALAR

#if HWY_TARGET == HWY_SCALAR
void InterleaveActsImpl(QuantizedActs& a) {
  a.group_lanes = 0;  // the scalar target keeps the plain layout
}
#endif

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
// One weight row into the interleaved layout of a, through r.
HWY_INLINE void PrepareRowI(TT type, const uint8_t* row, int64_t cols, const QuantizedActs& a,
                            RowBuf& r, RowBufI& d) {
#if HWY_TARGET <= HWY_AVX3
  if (type == TT::Q4_K && a.main_bytes == a.istride) {  // whole groups: regrouped as unpacked
    UnpackInterleaveQ4_K(reinterpret_cast<const BlockQ4_K*>(row), cols / 256, r, d.u.data());
    return PlaceBlockScales(r, a.main_bytes / 32, a.istride / 32, d);
  }
#endif
  Unpack<false>(type, row, cols, r);
  InterleaveRow(r.u.data(), a.main_bytes, a.istride, d.u.data());
  PlaceBlockScales(r, a.main_bytes / 32, a.istride / 32, d);
}
#endif

void DotRowsIntImpl(const Weights& w, const int32_t* rows, int64_t j0, int64_t j1,
                    const QuantizedActs& a, float* y, int64_t ldy, RowScratch& rs) {
  const BlockGeometry g = block_geometry(w.type);
  const int64_t rb = w.cols / g.elems * g.bytes;
  const auto* base = static_cast<const uint8_t*>(w.data);
  const bool wide = w.type == TT::Q8_0;  // q + 128 reaches 255
#if HWY_TARGET != HWY_SCALAR
  if (a.group_lanes == int64_t(hn::Lanes(DI32())) && a.group_lanes > 0) {
    RowBuf& r = rs.plain;
    r.reset(a.istride);
    RowBufI* ri = rs.inter;
    for (int i = 0; i < kTileRows; ++i) ri[i].reset(a.istride);
    const RowBufI* rp[kTileRows];
    for (int i = 0; i < kTileRows; ++i) rp[i] = &ri[i];
    for (int64_t j = j0; j < j1; j += kTileRows) {
      const int nr = int(std::min<int64_t>(kTileRows, j1 - j));
      for (int i = 0; i < nr; ++i) {
        const uint8_t* row = base + (rows ? rows[j + i] : j + i) * rb;
        PrepareRowI(w.type, row, w.cols, a, r, ri[i]);
      }
      if (nr == kTileRows) {
        RowsTimesAllI<kTileRows>(w.type, rp, a, y + j, ldy);
      } else {
        for (int i = 0; i < nr; ++i) RowsTimesAllI<1>(w.type, rp + i, a, y + j + i, ldy);
      }
    }
    return;
  }
#endif
#if HWY_TARGET <= HWY_AVX3
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
    Unpack<true>(w.type, base + (rows ? rows[j] : j) * rb, w.cols, r);
    if (wide) {
      RowTimesAll<true>(r, a, y + j, ldy);
    } else {
      RowTimesAll<false>(r, a, y + j, ldy);
    }
  }
}

const char* IntTargetName() {
  return hwy::TargetName(HWY_TARGET);
}

bool Q4_KDirect() {
  return HWY_TARGET <= HWY_AVX3;
}

}  // namespace HWY_NAMESPACE
}  // namespace meadow::tensor::detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace meadow::tensor::detail {

HWY_EXPORT(DotRowsIntImpl);
HWY_EXPORT(InterleaveActsImpl);

void interleave_acts(QuantizedActs& a) {
  HWY_DYNAMIC_DISPATCH(InterleaveActsImpl)(a);
}
HWY_EXPORT(IntTargetName);

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

HWY_EXPORT(Q4_KDirect);

bool q4_k_direct() {
  return HWY_DYNAMIC_DISPATCH(Q4_KDirect)();
}

}  // namespace meadow::tensor::detail
#endif
