// Decoding of every supported tensor type to float32, following ggml's reference
// dequantize_row_* definitions (element order and arithmetic order both matter for
// bit-exact results). Plain loops; the compiler vectorizes the inner ones.
#include <cstring>
#include <string>

#include "gguf/blocks.hpp"
#include "gguf/half.hpp"
#include "meadow/error.hpp"
#include "meadow/runtime/gguf.hpp"

namespace meadow::gguf {
namespace {

using namespace blocks;

void dequant_f16(const uint8_t* src, float* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = half_to_float(load_u16(src + 2 * i));
}

void dequant_bf16(const uint8_t* src, float* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = bf16_to_float(load_u16(src + 2 * i));
}

void dequant_q8_0(const uint8_t* src, float* dst, int64_t nb) {
  for (int64_t b = 0; b < nb; ++b, src += kQ8_0Bytes, dst += kQ8_0Elems) {
    const float d = half_to_float(load_u16(src));
    const auto* q = reinterpret_cast<const int8_t*>(src + 2);
    for (int j = 0; j < kQ8_0Elems; ++j) dst[j] = float(q[j]) * d;
  }
}

void dequant_q4_0(const uint8_t* src, float* dst, int64_t nb) {
  for (int64_t b = 0; b < nb; ++b, src += kQ4_0Bytes, dst += kQ4_0Elems) {
    const float d = half_to_float(load_u16(src));
    const uint8_t* qs = src + 2;
    // Two simple loops (low nibbles, then high) vectorize; one interleaved loop does not.
    for (int j = 0; j < kQ4_0Elems / 2; ++j) dst[j] = float((qs[j] & 0x0f) - 8) * d;
    for (int j = 0; j < kQ4_0Elems / 2; ++j) dst[j + 16] = float((qs[j] >> 4) - 8) * d;
  }
}

void dequant_q4_1(const uint8_t* src, float* dst, int64_t nb) {
  for (int64_t b = 0; b < nb; ++b, src += kQ4_1Bytes, dst += kQ4_1Elems) {
    const float d = half_to_float(load_u16(src));
    const float m = half_to_float(load_u16(src + 2));
    const uint8_t* qs = src + 4;
    for (int j = 0; j < 16; ++j) dst[j] = float(qs[j] & 0x0f) * d + m;
    for (int j = 0; j < 16; ++j) dst[j + 16] = float(qs[j] >> 4) * d + m;
  }
}

// Q5_0 and Q5_1 share their bit layout: Q5_0 centres q at 16, Q5_1 adds its minimum m.
void dequant_q5(const uint8_t* src, float* dst, int64_t nb, bool has_min) {
  const int block_bytes = has_min ? kQ5_1Bytes : kQ5_0Bytes;
  for (int64_t b = 0; b < nb; ++b, src += block_bytes, dst += 32) {
    const float d = half_to_float(load_u16(src));
    const float m = has_min ? half_to_float(load_u16(src + 2)) : 0.0f;
    const uint8_t* hp = src + (has_min ? 4 : 2);
    const uint32_t qh =
        uint32_t(hp[0]) | uint32_t(hp[1]) << 8 | uint32_t(hp[2]) << 16 | uint32_t(hp[3]) << 24;
    const uint8_t* qs = hp + 4;
    const int offset = has_min ? 0 : 16;
    for (int j = 0; j < 16; ++j) {
      const int lo = (qs[j] & 0x0f) | int((qh >> j) & 1) << 4;
      const int hi = (qs[j] >> 4) | int((qh >> (j + 16)) & 1) << 4;
      dst[j] = has_min ? float(lo) * d + m : float(lo - offset) * d;
      dst[j + 16] = has_min ? float(hi) * d + m : float(hi - offset) * d;
    }
  }
}

// Q4_K and Q5_K share their super-block: d, dmin, 12 scale bytes, then (Q5_K only) qh[32]
// holding each element's fifth bit, then qs[128]. Four 64-element groups; each uses 32 bytes
// of qs: low nibbles are the first sub-block, high nibbles the second.
void dequant_k(const uint8_t* src, float* dst, int64_t nb, bool five) {
  const int block = five ? kQ5_KBytes : kQ4_KBytes;
  for (int64_t b = 0; b < nb; ++b, src += block) {
    const float d = half_to_float(load_u16(src));
    const float dmin = half_to_float(load_u16(src + 2));
    const uint8_t* scales = src + kQ4_KScalesAt;
    const uint8_t* qh = src + kQ5_KQhAt;
    const uint8_t* qs = src + (five ? kQ5_KQsAt : kQ4_KQsAt);
    for (int g = 0; g < 4; ++g, qs += 32, dst += 64) {
      int sc0, m0, sc1, m1;
      q4k_scale_min(scales, 2 * g, sc0, m0);
      q4k_scale_min(scales, 2 * g + 1, sc1, m1);
      const float d0 = d * float(sc0), min0 = dmin * float(m0);
      const float d1 = d * float(sc1), min1 = dmin * float(m1);
      for (int l = 0; l < 32; ++l) {
        const int hi = five ? ((qh[l] >> (2 * g)) & 1) << 4 : 0;
        dst[l] = d0 * float((qs[l] & 0x0f) | hi) - min0;
      }
      for (int l = 0; l < 32; ++l) {
        const int hi = five ? ((qh[l] >> (2 * g + 1)) & 1) << 4 : 0;
        dst[32 + l] = d1 * float((qs[l] >> 4) | hi) - min1;
      }
    }
  }
}

void dequant_q8_k(const uint8_t* src, float* dst, int64_t nb) {
  for (int64_t b = 0; b < nb; ++b, src += kQ8_KBytes, dst += kQK) {
    float d;
    std::memcpy(&d, src, 4);
    const auto* q = reinterpret_cast<const int8_t*>(src + kQ8_KQsAt);
    for (int j = 0; j < kQK; ++j) dst[j] = d * float(q[j]);
  }
}

void dequant_q6_k(const uint8_t* src, float* dst, int64_t nb) {
  for (int64_t b = 0; b < nb; ++b, src += kQ6_KBytes) {
    const float d = half_to_float(load_u16(src + kQ6_KDAt));
    const uint8_t* scales = src + kQ6_KScalesAt;
    // Two 128-element halves; each uses 64 bytes of ql, 32 of qh and 8 scales. Element
    // 32*k + l of a half takes ql[l] (k=0,2) or ql[32+l] (k=1,3), low nibble for k<2, high
    // for k>=2, plus bits 2k..2k+1 of qh[l]; its scale is scales[2k + l/16].
    for (int h = 0; h < 2; ++h, dst += 128) {
      const uint8_t* ql = src + 64 * h;
      const uint8_t* qh = src + kQ6_KQhAt + 32 * h;
      const uint8_t* sc = scales + 8 * h;
      for (int half = 0; half < 2; ++half) {
        // d * scale first, as ggml does, so results match it bit for bit.
        const float s0 = d * float(int8_t(sc[half]));
        const float s1 = d * float(int8_t(sc[half + 2]));
        const float s2 = d * float(int8_t(sc[half + 4]));
        const float s3 = d * float(int8_t(sc[half + 6]));
        for (int l = 16 * half; l < 16 * half + 16; ++l) {
          const int q0 = ((ql[l] & 0x0f) | ((qh[l] & 0x03) << 4)) - 32;
          const int q1 = ((ql[l + 32] & 0x0f) | ((qh[l] & 0x0c) << 2)) - 32;
          const int q2 = ((ql[l] >> 4) | (qh[l] & 0x30)) - 32;
          const int q3 = ((ql[l + 32] >> 4) | ((qh[l] & 0xc0) >> 2)) - 32;
          dst[l] = s0 * float(q0);
          dst[l + 32] = s1 * float(q1);
          dst[l + 64] = s2 * float(q2);
          dst[l + 96] = s3 * float(q3);
        }
      }
    }
  }
}

}  // namespace

void dequantize(TensorType t, const void* src, float* dst, int64_t n) {
  if (n < 0) throw Error("dequantize: negative element count " + std::to_string(n));
  row_bytes(t, static_cast<uint64_t>(n));  // throws unless n is a whole number of blocks
  if (n == 0) return;
  const auto* s = static_cast<const uint8_t*>(src);
  const int64_t nb = n / block_elements(t);
  switch (t) {
    case TensorType::F32:
      std::memcpy(dst, s, size_t(n) * 4);
      return;
    case TensorType::F16:
      dequant_f16(s, dst, n);
      return;
    case TensorType::BF16:
      dequant_bf16(s, dst, n);
      return;
    case TensorType::Q8_0:
      dequant_q8_0(s, dst, nb);
      return;
    case TensorType::Q4_0:
      dequant_q4_0(s, dst, nb);
      return;
    case TensorType::Q4_1:
      dequant_q4_1(s, dst, nb);
      return;
    case TensorType::Q5_0:
      dequant_q5(s, dst, nb, false);
      return;
    case TensorType::Q5_1:
      dequant_q5(s, dst, nb, true);
      return;
    case TensorType::Q4_K:
      dequant_k(s, dst, nb, false);
      return;
    case TensorType::Q5_K:
      dequant_k(s, dst, nb, true);
      return;
    case TensorType::Q8_K:
      dequant_q8_k(s, dst, nb);
      return;
    case TensorType::Q6_K:
      dequant_q6_k(s, dst, nb);
      return;
  }
  throw Error(std::string("dequantize: unsupported tensor type ") + type_name(t));
}

}  // namespace meadow::gguf
