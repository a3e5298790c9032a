// Byte layouts of ggml's quantized blocks (ggml-common.h), as offsets into a block, so the
// quantizer and dequantizer agree without relying on struct packing.
#pragma once

#include <cstdint>
#include <cstring>

namespace meadow::gguf::blocks {

// Q8_0: fp16 d, then 32 int8 q; x = q * d.
inline constexpr int kQ8_0Elems = 32;
inline constexpr int kQ8_0Bytes = 2 + 32;

// Q4_0: fp16 d, then 16 bytes; byte j holds element j (low nibble) and j+16 (high nibble);
// x = (q - 8) * d.
inline constexpr int kQ4_0Elems = 32;
inline constexpr int kQ4_0Bytes = 2 + 16;

// Q4_1: fp16 d, fp16 m, then 16 bytes of nibbles as Q4_0; x = q * d + m.
inline constexpr int kQ4_1Elems = 32;
inline constexpr int kQ4_1Bytes = 2 + 2 + 16;

// Q5_0: fp16 d, 4 bytes qh (bit j = fifth bit of element j), 16 bytes of nibbles as Q4_0;
// x = (q - 16) * d.
inline constexpr int kQ5_0Elems = 32;
inline constexpr int kQ5_0Bytes = 2 + 4 + 16;

// Q5_1: fp16 d, fp16 m, 4 bytes qh, 16 bytes of nibbles; x = q * d + m.
inline constexpr int kQ5_1Elems = 32;
inline constexpr int kQ5_1Bytes = 2 + 2 + 4 + 16;

// Q4_K: 256 elements in 8 sub-blocks of 32. fp16 d, fp16 dmin, 12 bytes of 6-bit sub-block
// scales and mins, 128 bytes of nibbles. x = d*sc[j] * q - dmin*m[j].
inline constexpr int kQK = 256;
inline constexpr int kQ4_KScalesAt = 4;
inline constexpr int kQ4_KQsAt = 16;
inline constexpr int kQ4_KBytes = 2 + 2 + 12 + 128;

// Q5_K: Q4_K's d, dmin and 12 scale bytes, then qh[32] (bit j of qh[l] is the fifth bit of
// element l of sub-block j), then qs[128] packed as Q4_K's. x = d*sc[j] * q - dmin*m[j].
inline constexpr int kQ5_KQhAt = 16;
inline constexpr int kQ5_KQsAt = 48;
inline constexpr int kQ5_KBytes = 2 + 2 + 12 + 32 + 128;

// Q8_K: float32 d, int8 q[256], int16 bsums[16] (sums of 16-element groups); x = d * q.
inline constexpr int kQ8_KQsAt = 4;
inline constexpr int kQ8_KSumsAt = 4 + 256;
inline constexpr int kQ8_KBytes = 4 + 256 + 32;

// Q6_K: 256 elements in 16 sub-blocks of 16. ql[128] low nibbles, qh[64] high 2-bit pairs,
// int8 scales[16], fp16 d. x = d * scales[j] * (q - 32).
inline constexpr int kQ6_KQhAt = 128;
inline constexpr int kQ6_KScalesAt = 192;
inline constexpr int kQ6_KDAt = 208;
inline constexpr int kQ6_KBytes = 210;

inline uint16_t load_u16(const uint8_t* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}
inline void store_u16(uint8_t* p, uint16_t v) {
  std::memcpy(p, &v, 2);
}

// Sub-block j's 6-bit scale and min in Q4_K's 12-byte packing: bytes 0..3 hold scales 0..3,
// bytes 4..7 mins 0..3 (low 6 bits each); sub-blocks 4..7 keep their low 4 bits in bytes
// 8..11 (scale low nibble, min high nibble) and their top 2 bits in the top bits of bytes 0..7.
inline void q4k_scale_min(const uint8_t* s, int j, int& sc, int& m) {
  if (j < 4) {
    sc = s[j] & 63;
    m = s[j + 4] & 63;
  } else {
    sc = (s[j + 4] & 0x0f) | ((s[j - 4] >> 6) << 4);
    m = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
  }
}

}  // namespace meadow::gguf::blocks
