// Byte layouts of the GGUF block types the kernels read in place (facts of the format), and
// the scalar half-precision conversions they need.
#pragma once

#include <cstdint>
#include <cstring>

#include "meadow/runtime/gguf.hpp"

namespace meadow::tensor::detail {

struct BlockQ8_0 {  // 32 weights: w = d * qs[i]
  uint16_t d;       // fp16
  int8_t qs[32];
};
static_assert(sizeof(BlockQ8_0) == 34);

struct BlockQ4_0 {  // 32 weights: w[i] = d * ((qs[i] & 15) - 8), w[i+16] = d * ((qs[i] >> 4) - 8)
  uint16_t d;
  uint8_t qs[16];
};
static_assert(sizeof(BlockQ4_0) == 18);

struct BlockQ4_1 {  // 32 weights: w[i] = d * (qs[i] & 15) + m, w[i+16] = d * (qs[i] >> 4) + m
  uint16_t d;
  uint16_t m;
  uint8_t qs[16];
};
static_assert(sizeof(BlockQ4_1) == 20);

// 256 weights in 8 sub-blocks of 32, each with a 6-bit scale and 6-bit min packed in `scales`.
// Sub-blocks 2i and 2i+1 take the low and high nibbles of qs[32i .. 32i+31].
struct BlockQ4_K {
  uint16_t d;
  uint16_t dmin;
  uint8_t scales[12];
  uint8_t qs[128];
};
static_assert(sizeof(BlockQ4_K) == 144);

// 256 weights in 16 sub-blocks of 16 with int8 scales; 6-bit values split into 4 low bits
// (ql) and 2 high bits (qh), offset by 32.
struct BlockQ6_K {
  uint8_t ql[128];
  uint8_t qh[64];
  int8_t scales[16];
  uint16_t d;
};
static_assert(sizeof(BlockQ6_K) == 210);

// Elements and bytes per block; {0, 0} for a type the kernels do not read.
struct BlockGeometry {
  int64_t elems = 0;
  int64_t bytes = 0;
};
inline BlockGeometry block_geometry(gguf::TensorType t) {
  using TT = gguf::TensorType;
  switch (t) {
    case TT::F32:
      return {1, 4};
    case TT::F16:
      return {1, 2};
    case TT::BF16:
      return {1, 2};
    case TT::Q8_0:
      return {32, sizeof(BlockQ8_0)};
    case TT::Q4_0:
      return {32, sizeof(BlockQ4_0)};
    case TT::Q4_1:
      return {32, sizeof(BlockQ4_1)};
    case TT::Q4_K:
      return {256, sizeof(BlockQ4_K)};
    // Decoded by gguf::dequantize (scalar): rare in community files, no SIMD path yet.
    case TT::Q5_0:
    case TT::Q5_1:
    case TT::Q5_K:
    case TT::Q8_K:
      return {gguf::block_elements(t), gguf::block_bytes(t)};
    case TT::Q6_K:
      return {256, sizeof(BlockQ6_K)};
  }
  return {};
}

inline float bits_to_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

inline float fp16_to_float(uint16_t h) {
  const uint32_t sign = uint32_t(h >> 15) << 31;
  const uint32_t exp = (h >> 10) & 0x1f;
  const uint32_t mant = h & 0x3ff;
  if (exp == 0) {  // zero or subnormal: mant * 2^-24, exact in float
    const float v = float(mant) * 5.9604644775390625e-8f;
    return sign ? -v : v;
  }
  if (exp == 31) return bits_to_float(sign | 0x7f800000u | (mant << 13));
  return bits_to_float(sign | ((exp + 112) << 23) | (mant << 13));
}

inline float bf16_to_float(uint16_t h) {
  return bits_to_float(uint32_t(h) << 16);
}

// Scale and min of Q4_K sub-block j (0..7), 6 bits each.
inline void q4k_scale_min(const uint8_t* s, int j, int& sc, int& m) {
  if (j < 4) {
    sc = s[j] & 63;
    m = s[j + 4] & 63;
  } else {
    sc = (s[j + 4] & 0xf) | ((s[j - 4] >> 6) << 4);
    m = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
  }
}

}  // namespace meadow::tensor::detail
