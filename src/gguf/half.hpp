// IEEE binary16 and bfloat16 <-> float32 conversions, written as plain integer/float code so
// loops over them auto-vectorize and results do not depend on the CPU's F16C support.
#pragma once

#include <bit>
#include <cstdint>

namespace meadow::gguf {

// Exact: every binary16 value is a float32 value.
inline float half_to_float(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t em = h & 0x7fffu;
  // Placing exponent+mantissa 13 bits up and scaling by 2^112 rebiases the exponent (15 -> 127);
  // it also turns half subnormals into the right float value, because the scaling is exact.
  const float finite = std::bit_cast<float>(em << 13) * 0x1p112f;
  const uint32_t special = (em << 13) | 0x7f800000u;  // inf / NaN keep their payload
  // Branch-free select so loops over this vectorize.
  const uint32_t is_special = 0u - uint32_t(em >= 0x7c00u);
  const uint32_t bits = (std::bit_cast<uint32_t>(finite) & ~is_special) | (special & is_special);
  return std::bit_cast<float>(bits | sign);
}

// Round to nearest, ties to even; overflow gives infinity, NaN stays NaN.
inline uint16_t float_to_half(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  const uint16_t sign = uint16_t((x >> 16) & 0x8000u);
  x &= 0x7fffffffu;
  if (x > 0x7f800000u) return sign | 0x7e00u;   // NaN
  if (x >= 0x477ff000u) return sign | 0x7c00u;  // >= 65520 rounds to infinity
  if (x < 0x38800000u) {
    // Below the smallest normal half (2^-14): adding 0.5 lines the float's last mantissa bit up
    // with 2^-24 (the half subnormal step), so the FPU does the rounding for us.
    const float v = std::bit_cast<float>(x) + 0.5f;
    return sign | uint16_t(std::bit_cast<uint32_t>(v) - 0x3f000000u);
  }
  const uint32_t odd = (x >> 13) & 1u;
  x += 0xc8000fffu + odd;  // rebias exponent (127 -> 15) and round to nearest even
  return sign | uint16_t(x >> 13);
}

inline float bf16_to_float(uint16_t h) {
  return std::bit_cast<float>(uint32_t(h) << 16);
}

inline uint16_t float_to_bf16(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return uint16_t((x >> 16) | 0x40u);  // quiet NaN
  return uint16_t((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

}  // namespace meadow::gguf
