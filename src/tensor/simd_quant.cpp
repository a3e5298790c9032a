// Weight-block decoders and quantized dot products, compiled once per SIMD target by Highway
// and dispatched at run time. Vectors are capped at 16 floats so one vector never spans
// more than a 16-byte run of packed quants (the block layouts are built around 16/32).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tensor/simd_quant.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include <algorithm>

#include "meadow/runtime/gguf.hpp"
#include "tensor/quant_blocks.hpp"
#include "tensor/quant_dot.hpp"
#include "tensor/simd_kernels.hpp"
#include "tensor/small_buffer.hpp"

HWY_BEFORE_NAMESPACE();
namespace meadow::tensor::detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::CappedTag<float, 16>;
using TT = gguf::TensorType;

// Dequantized u8 lanes (already reduced to small integers) times a scale, plus an offset.
template <class DU8>
HWY_INLINE hn::Vec<DF> U8ToFloat(DF df, DU8, hn::Vec<DU8> q) {
  const hn::Rebind<int32_t, DF> di;
  return hn::ConvertTo(df, hn::BitCast(di, hn::PromoteTo(hn::Rebind<uint32_t, DF>(), q)));
}

HWY_INLINE void DecodeQ8_0(const BlockQ8_0* b, int64_t nb, float* out) {
  const DF df;
  const hn::Rebind<int8_t, DF> d8;
  const hn::Rebind<int32_t, DF> di;
  const size_t N = hn::Lanes(df);
  for (int64_t i = 0; i < nb; ++i, out += 32) {
    const auto d = hn::Set(df, fp16_to_float(b[i].d));
    for (size_t j = 0; j < 32; j += N) {
      const auto q = hn::ConvertTo(df, hn::PromoteTo(di, hn::LoadU(d8, b[i].qs + j)));
      hn::StoreU(hn::Mul(q, d), df, out + j);
    }
  }
}

HWY_INLINE void DecodeQ4_0(const BlockQ4_0* b, int64_t nb, float* out) {
  const DF df;
  const hn::Rebind<uint8_t, DF> d8;
  const size_t N = hn::Lanes(df);
  const auto mask = hn::Set(d8, uint8_t{0x0f});
  for (int64_t i = 0; i < nb; ++i, out += 32) {
    const float dv = fp16_to_float(b[i].d);
    const auto d = hn::Set(df, dv);
    const auto off = hn::Set(df, -8.0f * dv);
    for (size_t j = 0; j < 16; j += N) {
      const auto q = hn::LoadU(d8, b[i].qs + j);
      hn::StoreU(hn::MulAdd(U8ToFloat(df, d8, hn::And(q, mask)), d, off), df, out + j);
      hn::StoreU(hn::MulAdd(U8ToFloat(df, d8, hn::ShiftRight<4>(q)), d, off), df, out + 16 + j);
    }
  }
}

HWY_INLINE void DecodeQ4_1(const BlockQ4_1* b, int64_t nb, float* out) {
  const DF df;
  const hn::Rebind<uint8_t, DF> d8;
  const size_t N = hn::Lanes(df);
  const auto mask = hn::Set(d8, uint8_t{0x0f});
  for (int64_t i = 0; i < nb; ++i, out += 32) {
    const auto d = hn::Set(df, fp16_to_float(b[i].d));
    const auto m = hn::Set(df, fp16_to_float(b[i].m));
    for (size_t j = 0; j < 16; j += N) {
      const auto q = hn::LoadU(d8, b[i].qs + j);
      // Mul then Add, not MulAdd: the format's reference rounds the product first.
      hn::StoreU(hn::Add(hn::Mul(U8ToFloat(df, d8, hn::And(q, mask)), d), m), df, out + j);
      hn::StoreU(hn::Add(hn::Mul(U8ToFloat(df, d8, hn::ShiftRight<4>(q)), d), m), df, out + 16 + j);
    }
  }
}

HWY_INLINE void DecodeQ4_K(const BlockQ4_K* b, int64_t nb, float* out) {
  const DF df;
  const hn::Rebind<uint8_t, DF> d8;
  const size_t N = hn::Lanes(df);
  const auto mask = hn::Set(d8, uint8_t{0x0f});
  for (int64_t i = 0; i < nb; ++i, out += 256) {
    const float d = fp16_to_float(b[i].d);
    const float dmin = fp16_to_float(b[i].dmin);
    for (int c = 0; c < 4; ++c) {  // 64 weights: low nibbles then high nibbles of 32 bytes
      int sc0, m0, sc1, m1;
      q4k_scale_min(b[i].scales, 2 * c, sc0, m0);
      q4k_scale_min(b[i].scales, 2 * c + 1, sc1, m1);
      const auto d0 = hn::Set(df, d * sc0), o0 = hn::Set(df, -dmin * m0);
      const auto d1 = hn::Set(df, d * sc1), o1 = hn::Set(df, -dmin * m1);
      const uint8_t* q = b[i].qs + 32 * c;
      float* o = out + 64 * c;
      for (size_t l = 0; l < 32; l += N) {
        const auto v = hn::LoadU(d8, q + l);
        hn::StoreU(hn::MulAdd(U8ToFloat(df, d8, hn::And(v, mask)), d0, o0), df, o + l);
        hn::StoreU(hn::MulAdd(U8ToFloat(df, d8, hn::ShiftRight<4>(v)), d1, o1), df, o + 32 + l);
      }
    }
  }
}

HWY_INLINE void DecodeQ6_K(const BlockQ6_K* b, int64_t nb, float* out) {
  const DF df;
  const hn::Rebind<uint8_t, DF> d8;
  const size_t N = hn::Lanes(df);
  const auto m4 = hn::Set(d8, uint8_t{0x0f});
  const auto m2 = hn::Set(d8, uint8_t{0x03});
  const auto bias = hn::Set(df, -32.0f);
  for (int64_t i = 0; i < nb; ++i, out += 256) {
    const float d = fp16_to_float(b[i].d);
    for (int h = 0; h < 2; ++h) {  // two halves of 128 weights
      const uint8_t* ql = b[i].ql + 64 * h;
      const uint8_t* qh = b[i].qh + 32 * h;
      const int8_t* sc = b[i].scales + 8 * h;
      float* o = out + 128 * h;
      for (size_t l = 0; l < 32; l += N) {
        const int is = int(l / 16);
        const auto a = hn::LoadU(d8, ql + l);
        const auto c = hn::LoadU(d8, ql + 32 + l);
        const auto hi = hn::LoadU(d8, qh + l);
        const auto q1 = hn::Or(hn::And(a, m4), hn::ShiftLeft<4>(hn::And(hi, m2)));
        const auto q2 =
            hn::Or(hn::And(c, m4), hn::ShiftLeft<4>(hn::And(hn::ShiftRight<2>(hi), m2)));
        const auto q3 =
            hn::Or(hn::ShiftRight<4>(a), hn::ShiftLeft<4>(hn::And(hn::ShiftRight<4>(hi), m2)));
        const auto q4 = hn::Or(hn::ShiftRight<4>(c), hn::ShiftLeft<4>(hn::ShiftRight<6>(hi)));
        const auto f1 = hn::Add(U8ToFloat(df, d8, q1), bias);
        const auto f2 = hn::Add(U8ToFloat(df, d8, q2), bias);
        const auto f3 = hn::Add(U8ToFloat(df, d8, q3), bias);
        const auto f4 = hn::Add(U8ToFloat(df, d8, q4), bias);
        hn::StoreU(hn::Mul(f1, hn::Set(df, d * sc[is + 0])), df, o + l);
        hn::StoreU(hn::Mul(f2, hn::Set(df, d * sc[is + 2])), df, o + 32 + l);
        hn::StoreU(hn::Mul(f3, hn::Set(df, d * sc[is + 4])), df, o + 64 + l);
        hn::StoreU(hn::Mul(f4, hn::Set(df, d * sc[is + 6])), df, o + 96 + l);
      }
    }
  }
}

HWY_INLINE void DecodeHalf(const uint16_t* p, int64_t n, float* out, bool bf16) {
  const DF df;
  const size_t N = hn::Lanes(df);
  const hn::Rebind<uint16_t, DF> d16;
  const hn::Rebind<uint32_t, DF> d32;
  const hn::Rebind<hwy::float16_t, DF> dh;
  int64_t i = 0;
  if (bf16) {
    for (; i + int64_t(N) <= n; i += N) {
      const auto u = hn::ShiftLeft<16>(hn::PromoteTo(d32, hn::LoadU(d16, p + i)));
      hn::StoreU(hn::BitCast(df, u), df, out + i);
    }
    for (; i < n; ++i) out[i] = bf16_to_float(p[i]);
  } else {
    const auto* h = reinterpret_cast<const hwy::float16_t*>(p);
    for (; i + int64_t(N) <= n; i += N)
      hn::StoreU(hn::PromoteTo(df, hn::LoadU(dh, h + i)), df, out + i);
    for (; i < n; ++i) out[i] = fp16_to_float(p[i]);
  }
}

// Decodes elements [e0, e0 + len) of one weight row; e0 and len are multiples of the block.
HWY_INLINE void DecodeSpan(TT type, const uint8_t* row, int64_t e0, int64_t len, float* out) {
  switch (type) {
    case TT::F32:
      std::copy_n(reinterpret_cast<const float*>(row) + e0, len, out);
      return;
    case TT::F16:
      return DecodeHalf(reinterpret_cast<const uint16_t*>(row) + e0, len, out, false);
    case TT::BF16:
      return DecodeHalf(reinterpret_cast<const uint16_t*>(row) + e0, len, out, true);
    case TT::Q8_0:
      return DecodeQ8_0(reinterpret_cast<const BlockQ8_0*>(row) + e0 / 32, len / 32, out);
    case TT::Q4_0:
      return DecodeQ4_0(reinterpret_cast<const BlockQ4_0*>(row) + e0 / 32, len / 32, out);
    case TT::Q4_1:
      return DecodeQ4_1(reinterpret_cast<const BlockQ4_1*>(row) + e0 / 32, len / 32, out);
    case TT::Q4_K:
      return DecodeQ4_K(reinterpret_cast<const BlockQ4_K*>(row) + e0 / 256, len / 256, out);
    case TT::Q5_0:
    case TT::Q5_1:
    case TT::Q5_K:
    case TT::Q8_K: {
      const int64_t be = gguf::block_elements(type);
      return gguf::dequantize(type, row + e0 / be * gguf::block_bytes(type), out, len);
    }
    case TT::Q6_K:
      return DecodeQ6_K(reinterpret_cast<const BlockQ6_K*>(row) + e0 / 256, len / 256, out);
  }
}

HWY_INLINE int64_t RowBytes(const Weights& w) {
  const BlockGeometry g = block_geometry(w.type);
  return w.cols / g.elems * g.bytes;
}

void DecodeRowsImpl(const Weights& w, const int32_t* rows, int64_t r0, int64_t nr, int64_t c0,
                    int64_t nc, float* out) {
  const auto* base = static_cast<const uint8_t*>(w.data);
  const int64_t rb = RowBytes(w);
  for (int64_t i = 0; i < nr; ++i) {
    const int64_t r = rows ? rows[i] : r0 + i;
    DecodeSpan(w.type, base + r * rb, c0, nc, out + i * nc);
  }
}

HWY_INLINE float Dot(const float* HWY_RESTRICT a, const float* HWY_RESTRICT b, int64_t n) {
  const hn::ScalableTag<float> d;
  const int64_t N = int64_t(hn::Lanes(d));
  auto s0 = hn::Zero(d), s1 = hn::Zero(d), s2 = hn::Zero(d), s3 = hn::Zero(d);
  int64_t i = 0;
  for (; i + 4 * N <= n; i += 4 * N) {
    s0 = hn::MulAdd(hn::LoadU(d, a + i), hn::LoadU(d, b + i), s0);
    s1 = hn::MulAdd(hn::LoadU(d, a + i + N), hn::LoadU(d, b + i + N), s1);
    s2 = hn::MulAdd(hn::LoadU(d, a + i + 2 * N), hn::LoadU(d, b + i + 2 * N), s2);
    s3 = hn::MulAdd(hn::LoadU(d, a + i + 3 * N), hn::LoadU(d, b + i + 3 * N), s3);
  }
  for (; i + N <= n; i += N) s0 = hn::MulAdd(hn::LoadU(d, a + i), hn::LoadU(d, b + i), s0);
  float s = hn::GetLane(hn::SumOfLanes(d, hn::Add(hn::Add(s0, s1), hn::Add(s2, s3))));
  for (; i < n; ++i) s += a[i] * b[i];
  return s;
}

// Single-token dot products that never materialise the decoded weights: per block (or
// sub-block) accumulate q·x in a vector, then scale once. The Q4_K minimum term uses the
// sums of x over each 32-element sub-block, computed once per call.
HWY_INLINE float DotQ8_0(const BlockQ8_0* b, int64_t nb, const float* x) {
  const DF df;
  const hn::Rebind<int8_t, DF> d8;
  const hn::Rebind<int32_t, DF> di;
  const size_t N = hn::Lanes(df);
  auto total = hn::Zero(df);
  for (int64_t i = 0; i < nb; ++i, x += 32) {
    auto acc = hn::Zero(df);
    for (size_t j = 0; j < 32; j += N) {
      const auto q = hn::ConvertTo(df, hn::PromoteTo(di, hn::LoadU(d8, b[i].qs + j)));
      acc = hn::MulAdd(q, hn::LoadU(df, x + j), acc);
    }
    total = hn::MulAdd(acc, hn::Set(df, fp16_to_float(b[i].d)), total);
  }
  return hn::GetLane(hn::SumOfLanes(df, total));
}

// Q4_1: sum (d q + m) x = d (q . x) + m (sum of x over the block).
HWY_INLINE float DotQ4_1(const BlockQ4_1* b, int64_t nb, const float* x, const float* xsum) {
  const DF df;
  const hn::Rebind<uint8_t, DF> d8;
  const size_t N = hn::Lanes(df);
  const auto mask = hn::Set(d8, uint8_t{0x0f});
  auto total = hn::Zero(df);
  float mins = 0.0f;
  for (int64_t i = 0; i < nb; ++i, x += 32) {
    auto acc = hn::Zero(df);
    for (size_t j = 0; j < 16; j += N) {
      const auto v = hn::LoadU(d8, b[i].qs + j);
      acc = hn::MulAdd(U8ToFloat(df, d8, hn::And(v, mask)), hn::LoadU(df, x + j), acc);
      acc = hn::MulAdd(U8ToFloat(df, d8, hn::ShiftRight<4>(v)), hn::LoadU(df, x + 16 + j), acc);
    }
    total = hn::MulAdd(acc, hn::Set(df, fp16_to_float(b[i].d)), total);
    mins += fp16_to_float(b[i].m) * xsum[i];
  }
  return hn::GetLane(hn::SumOfLanes(df, total)) + mins;
}

HWY_INLINE float DotQ4_K(const BlockQ4_K* b, int64_t nb, const float* x, const float* xsum) {
  const DF df;
  const hn::Rebind<uint8_t, DF> d8;
  const size_t N = hn::Lanes(df);
  const auto mask = hn::Set(d8, uint8_t{0x0f});
  auto total = hn::Zero(df);
  float mins = 0.0f;
  for (int64_t i = 0; i < nb; ++i, x += 256, xsum += 8) {
    const float d = fp16_to_float(b[i].d);
    const float dmin = fp16_to_float(b[i].dmin);
    for (int c = 0; c < 4; ++c) {
      int sc0, m0, sc1, m1;
      q4k_scale_min(b[i].scales, 2 * c, sc0, m0);
      q4k_scale_min(b[i].scales, 2 * c + 1, sc1, m1);
      const uint8_t* q = b[i].qs + 32 * c;
      const float* xl = x + 64 * c;
      auto acc0 = hn::Zero(df), acc1 = hn::Zero(df);
      for (size_t l = 0; l < 32; l += N) {
        const auto v = hn::LoadU(d8, q + l);
        acc0 = hn::MulAdd(U8ToFloat(df, d8, hn::And(v, mask)), hn::LoadU(df, xl + l), acc0);
        acc1 =
            hn::MulAdd(U8ToFloat(df, d8, hn::ShiftRight<4>(v)), hn::LoadU(df, xl + 32 + l), acc1);
      }
      total = hn::MulAdd(acc0, hn::Set(df, d * float(sc0)), total);
      total = hn::MulAdd(acc1, hn::Set(df, d * float(sc1)), total);
      mins += dmin * (float(m0) * xsum[2 * c] + float(m1) * xsum[2 * c + 1]);
    }
  }
  return hn::GetLane(hn::SumOfLanes(df, total)) - mins;
}

HWY_INLINE void SumsOf32(const float* x, int64_t n, float* out) {
  const DF df;
  const size_t N = hn::Lanes(df);
  for (int64_t s = 0; s < n / 32; ++s) {
    auto acc = hn::Zero(df);
    for (size_t j = 0; j < 32; j += N) acc = hn::Add(acc, hn::LoadU(df, x + 32 * s + j));
    out[s] = hn::GetLane(hn::SumOfLanes(df, acc));
  }
}

void DotRowsImpl(const Weights& w, const int32_t* rows, int64_t j0, int64_t j1, const float* x,
                 int64_t n, float* y, int64_t ldy) {
  // Decode a chunk of the row into L1, then dot it with every activation row.
  constexpr int64_t kChunk = 512;  // a multiple of every block size
  HWY_ALIGN float buf[kChunk];
  SmallBuffer<float, 64> sums{size_t(n)};
  const auto* base = static_cast<const uint8_t*>(w.data);
  const int64_t rb = RowBytes(w);
  if (n == 1 && (w.type == TT::Q8_0 || w.type == TT::Q4_K || w.type == TT::Q4_1)) {
    SmallBuffer<float, 1024> xsum{w.type != TT::Q8_0 ? size_t(w.cols / 32) : 0};
    if (w.type != TT::Q8_0) SumsOf32(x, w.cols, xsum.data());
    for (int64_t j = j0; j < j1; ++j) {
      const uint8_t* row = base + (rows ? rows[j] : j) * rb;
      switch (w.type) {
        case TT::Q8_0:
          y[j] = DotQ8_0(reinterpret_cast<const BlockQ8_0*>(row), w.cols / 32, x);
          break;
        case TT::Q4_1:
          y[j] = DotQ4_1(reinterpret_cast<const BlockQ4_1*>(row), w.cols / 32, x, xsum.data());
          break;
        default:
          y[j] = DotQ4_K(reinterpret_cast<const BlockQ4_K*>(row), w.cols / 256, x, xsum.data());
      }
    }
    return;
  }
  for (int64_t j = j0; j < j1; ++j) {
    const uint8_t* row = base + (rows ? rows[j] : j) * rb;
    std::fill_n(sums.data(), n, 0.0f);
    for (int64_t c = 0; c < w.cols; c += kChunk) {
      const int64_t len = std::min(kChunk, w.cols - c);
      const float* wv = buf;
      if (w.type == TT::F32) {
        wv = reinterpret_cast<const float*>(row) + c;
      } else {
        DecodeSpan(w.type, row, c, len, buf);
      }
      for (int64_t t = 0; t < n; ++t) sums[size_t(t)] += Dot(wv, x + t * w.cols + c, len);
    }
    for (int64_t t = 0; t < n; ++t) y[t * ldy + j] = sums[size_t(t)];
  }
}

float DotF32(const float* a, const float* b, int64_t n) {
  return Dot(a, b, n);
}

const char* TargetName() {
  return hwy::TargetName(HWY_TARGET);
}

}  // namespace HWY_NAMESPACE
}  // namespace meadow::tensor::detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace meadow::tensor::detail {

HWY_EXPORT(DecodeRowsImpl);
HWY_EXPORT(DotRowsImpl);
HWY_EXPORT(DotF32);
HWY_EXPORT(TargetName);

void decode_rows(const Weights& w, const int32_t* rows, int64_t r0, int64_t nr, int64_t c0,
                 int64_t nc, float* out) {
  if (w.packed && !rows) {  // row by row: a row of the transposed output is the row itself
    for (int64_t i = 0; i < nr; ++i) decode_packed(w, r0 + i, 1, c0, nc, out + i * nc, 1);
    return;
  }
  HWY_DYNAMIC_DISPATCH(DecodeRowsImpl)(w, rows, r0, nr, c0, nc, out);
}
void dot_rows(const Weights& w, const int32_t* rows, int64_t j0, int64_t j1, const float* x,
              int64_t n, float* y, int64_t ldy) {
  HWY_DYNAMIC_DISPATCH(DotRowsImpl)(w, rows, j0, j1, x, n, y, ldy);
}
float dot_f32(const float* a, const float* b, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(DotF32)(a, b, n);
}
const char* simd_target_name() {
  return HWY_DYNAMIC_DISPATCH(TargetName)();
}

}  // namespace meadow::tensor::detail
#endif
