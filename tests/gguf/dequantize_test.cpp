// Dequantization against hand-built blocks: the bytes are laid out here from the format
// description and the expected values come from the format's formula, evaluated per element
// (not by the library's loops). Scales are powers of two and quants small integers, so every
// expected value is exact and the comparison is bit-exact.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "gguf_quantize.hpp"
#include "meadow/error.hpp"
#include "meadow/runtime/gguf.hpp"

namespace meadow::gguf {
namespace {

void put16(std::vector<uint8_t>& b, size_t at, uint16_t v) {
  b[at] = uint8_t(v & 0xff);
  b[at + 1] = uint8_t(v >> 8);
}

std::vector<float> decode(TensorType t, const std::vector<uint8_t>& bytes, int64_t n) {
  std::vector<float> out(size_t(n), -12345.0f);
  dequantize(t, bytes.data(), out.data(), n);
  return out;
}

// binary16 by definition: sign, 5-bit exponent (bias 15), 10-bit fraction.
double half_by_definition(uint16_t h) {
  const int sign = h >> 15, e = (h >> 10) & 31, m = h & 1023;
  double v;
  if (e == 0) {
    v = std::ldexp(m, -24);
  } else if (e == 31) {
    v = m ? NAN : INFINITY;
  } else {
    v = std::ldexp(1024 + m, e - 25);
  }
  return sign ? -v : v;
}

TEST(GgufDequantize, F16EveryBitPattern) {
  std::vector<uint8_t> b(2 * 65536);
  for (uint32_t h = 0; h < 65536; ++h) put16(b, 2 * h, uint16_t(h));
  const auto y = decode(TensorType::F16, b, 65536);
  for (uint32_t h = 0; h < 65536; ++h) {
    const double want = half_by_definition(uint16_t(h));
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(y[h])) << h;
    } else {
      ASSERT_EQ(double(y[h]), want) << "half bits " << h;
      ASSERT_EQ(std::signbit(y[h]), bool(h & 0x8000)) << h;
    }
  }
  // Every finite half survives float -> half (the quantizer) unchanged.
  std::vector<float> finite;
  std::vector<uint16_t> bits;
  for (uint32_t h = 0; h < 65536; ++h) {
    if (((h >> 10) & 31) != 31) finite.push_back(y[h]), bits.push_back(uint16_t(h));
  }
  const auto q = quantize(TensorType::F16, finite.data(), int64_t(finite.size()));
  for (size_t i = 0; i < bits.size(); ++i) {
    ASSERT_EQ(uint16_t(q[2 * i] | (q[2 * i + 1] << 8)), bits[i]) << i;
  }
}

TEST(GgufDequantize, F16AndBF16RoundToNearestEven) {
  // Halfway between 1 and the next half (1 + 2^-10) rounds to even (1); 1 + 3*2^-11 is halfway
  // between 1 + 2^-10 (odd) and 1 + 2^-9 (even).
  const float x[] = {1.0f + 0x1p-11f, 1.0f + 3 * 0x1p-11f, 1.0f + 0x1p-11f + 0x1p-20f,
                     0x1p-25f,        0x1p-25f + 0x1p-30f, -65504.0f};
  const double want16[] = {1.0, 1.0 + 0x1p-9, 1.0 + 0x1p-10, 0.0, 0x1p-24, -65504.0};
  const auto q16 = quantize(TensorType::F16, x, 6);
  const auto y16 = decode(TensorType::F16, q16, 6);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(double(y16[i]), want16[i]) << i;
  const float big = 70000.0f;
  EXPECT_THROW(quantize(TensorType::F16, &big, 1), Error);

  // bf16 keeps 7 fraction bits: ulp at 1 is 2^-7.
  const float xb[] = {1.0f + 0x1p-8f, 1.0f + 3 * 0x1p-8f, -3.0f, 1e30f};
  const auto qb = quantize(TensorType::BF16, xb, 4);
  const auto yb = decode(TensorType::BF16, qb, 4);
  EXPECT_EQ(yb[0], 1.0f);
  EXPECT_EQ(yb[1], 1.0f + 0x1p-6f);
  EXPECT_EQ(yb[2], -3.0f);
  EXPECT_LE(std::fabs(yb[3] - 1e30f), 1e30f * 0x1p-8f);
  // bf16 is the top half of a float32.
  std::vector<uint8_t> raw = {0x80, 0x3f, 0x49, 0xc0};  // 0x3f80 = 1.0, 0xc049 = -3.140625
  const auto yr = decode(TensorType::BF16, raw, 2);
  EXPECT_EQ(yr[0], 1.0f);
  EXPECT_EQ(yr[1], -3.140625f);
}

TEST(GgufDequantize, F32IsCopied) {
  const float x[] = {1.5f, -0.0f, 3e-40f, 7.0f};
  std::vector<uint8_t> b(16);
  std::memcpy(b.data(), x, 16);
  const auto y = decode(TensorType::F32, b, 4);
  EXPECT_EQ(std::memcmp(y.data(), x, 16), 0);
}

TEST(GgufDequantize, Q8_0HandBlocks) {
  // Two blocks of 34 bytes: fp16 d, then 32 int8 quants; x = q * d.
  std::vector<uint8_t> b(68);
  const uint16_t d16[2] = {0x3800, 0xc400};  // 0.5, -4
  const double d[2] = {0.5, -4.0};
  for (int blk = 0; blk < 2; ++blk) {
    put16(b, 34 * blk, d16[blk]);
    for (int j = 0; j < 32; ++j) b[34 * blk + 2 + j] = uint8_t(int8_t(j * 9 - 128 + blk));
  }
  const auto y = decode(TensorType::Q8_0, b, 64);
  for (int i = 0; i < 64; ++i) {
    const int blk = i / 32, j = i % 32;
    EXPECT_EQ(double(y[i]), double(int8_t(j * 9 - 128 + blk)) * d[blk]) << i;
  }
}

TEST(GgufDequantize, Q4_0HandBlocks) {
  // 18 bytes: fp16 d, 16 bytes; byte j: low nibble = element j, high nibble = element j + 16;
  // x = (nibble - 8) * d.
  std::vector<uint8_t> b(36);
  const uint16_t d16[2] = {0x3400, 0x4200};  // 0.25, 3
  const double d[2] = {0.25, 3.0};
  for (int blk = 0; blk < 2; ++blk) {
    put16(b, 18 * blk, d16[blk]);
    for (int j = 0; j < 16; ++j) b[18 * blk + 2 + j] = uint8_t(((j + blk) & 15) | ((15 - j) << 4));
  }
  const auto y = decode(TensorType::Q4_0, b, 64);
  for (int i = 0; i < 64; ++i) {
    const int blk = i / 32, e = i % 32;
    const int nibble = e < 16 ? ((e + blk) & 15) : 15 - (e - 16);
    EXPECT_EQ(double(y[i]), (nibble - 8) * d[blk]) << i;
  }
}

TEST(GgufDequantize, Q4_1HandBlocks) {
  // 20 bytes: fp16 d, fp16 m, 16 bytes of nibbles as Q4_0; x = nibble * d + m.
  std::vector<uint8_t> b(40);
  const uint16_t d16[2] = {0x3400, 0x4200}, m16[2] = {0xc000, 0x3c00};  // d 0.25, 3; m -2, 1
  const double d[2] = {0.25, 3.0}, m[2] = {-2.0, 1.0};
  for (int blk = 0; blk < 2; ++blk) {
    put16(b, 20 * blk, d16[blk]);
    put16(b, 20 * blk + 2, m16[blk]);
    for (int j = 0; j < 16; ++j) b[20 * blk + 4 + j] = uint8_t(((j + blk) & 15) | ((15 - j) << 4));
  }
  const auto y = decode(TensorType::Q4_1, b, 64);
  for (int i = 0; i < 64; ++i) {
    const int blk = i / 32, e = i % 32;
    const int nibble = e < 16 ? ((e + blk) & 15) : 15 - (e - 16);
    EXPECT_EQ(double(y[i]), nibble * d[blk] + m[blk]) << i;
  }
}

TEST(GgufDequantize, Q5_0AndQ5_1HandBlocks) {
  // Q5_0: fp16 d, u32 qh (bit e = fifth bit of element e), 16 nibble bytes; x = (q - 16) * d.
  // Q5_1: fp16 d, fp16 m, qh, nibbles; x = q * d + m.
  const uint32_t qh = 0xA5C3F00Fu;
  for (bool with_min : {false, true}) {
    std::vector<uint8_t> b(with_min ? 24 : 22);
    put16(b, 0, 0x3800);  // 0.5
    size_t at = 2;
    if (with_min) put16(b, at, 0xbc00), at += 2;  // m = -1
    for (int k = 0; k < 4; ++k) b[at + k] = uint8_t(qh >> (8 * k));
    for (int j = 0; j < 16; ++j) b[at + 4 + j] = uint8_t((j * 7 & 15) | ((j * 3 & 15) << 4));
    const auto y = decode(with_min ? TensorType::Q5_1 : TensorType::Q5_0, b, 32);
    for (int e = 0; e < 32; ++e) {
      const int nib = e < 16 ? (e * 7 & 15) : ((e - 16) * 3 & 15);
      const int q = nib | int((qh >> e) & 1) << 4;
      EXPECT_EQ(double(y[e]), with_min ? q * 0.5 - 1.0 : (q - 16) * 0.5) << e << " " << with_min;
    }
  }
}

TEST(GgufDequantize, Q5_KHandBlock) {
  // 176 bytes: as Q4_K's d, dmin and scales, then qh[32], then qs[128]. Element l of
  // sub-block j: nibble of qs[32*(j/2) + l] (high for odd j) plus bit j of qh[l] as bit 4.
  std::vector<uint8_t> b(176, 0);
  put16(b, 0, 0x3c00);  // d = 1
  put16(b, 2, 0x3800);  // dmin = 0.5
  // Sub-blocks 0..3 only carry scales (low 6 bits of bytes 0..3) and mins (bytes 4..7);
  // sub-blocks 4..7 take scale 0 / min 0 (bytes 8..11 zero, top bits zero).
  const int sc[4] = {1, 2, 5, 63}, mn[4] = {0, 3, 1, 2};
  for (int j = 0; j < 4; ++j) b[4 + j] = uint8_t(sc[j]), b[8 + j] = uint8_t(mn[j]);
  for (int l = 0; l < 32; ++l) b[16 + l] = uint8_t(l * 37);
  for (int i = 0; i < 128; ++i) b[48 + i] = uint8_t(i * 11);
  const auto y = decode(TensorType::Q5_K, b, 256);
  for (int e = 0; e < 256; ++e) {
    const int j = e / 32, l = e % 32;
    const uint8_t byte = uint8_t((32 * (j / 2) + l) * 11);
    const int q = ((j % 2) ? byte >> 4 : byte & 15) | ((uint8_t(l * 37) >> j) & 1) << 4;
    const double want = j < 4 ? 1.0 * sc[j] * q - 0.5 * mn[j] : 0.0;
    EXPECT_EQ(double(y[e]), want) << e;
  }
}

TEST(GgufDequantize, Q4_KHandBlock) {
  // 144 bytes: fp16 d, fp16 dmin, 12 bytes scales/mins (6 bits each), 128 bytes nibbles.
  // Sub-block s (32 elements) has scale sc[s], min m[s]: x = d*sc*q - dmin*m. Elements
  // 64g..64g+31 are the low nibbles of qs[32g..32g+31], 64g+32.. the high nibbles.
  const int sc[8] = {1, 2, 3, 63, 17, 33, 48, 62};
  const int m[8] = {0, 5, 63, 1, 16, 40, 63, 7};
  std::vector<uint8_t> b(144);
  put16(b, 0, 0x3800);  // d = 0.5
  put16(b, 2, 0x3400);  // dmin = 0.25
  // Packing: bytes 0..3 = sc[0..3] | top 2 bits of sc[4..7] in bits 6..7; bytes 4..7 likewise
  // for mins; bytes 8..11 = low 4 bits of sc[4..7] | low 4 bits of m[4..7] << 4.
  for (int k = 0; k < 4; ++k) {
    b[4 + k] = uint8_t(sc[k] | ((sc[k + 4] >> 4) << 6));
    b[8 + k] = uint8_t(m[k] | ((m[k + 4] >> 4) << 6));
    b[12 + k] = uint8_t((sc[k + 4] & 15) | ((m[k + 4] & 15) << 4));
  }
  for (int i = 0; i < 128; ++i) b[16 + i] = uint8_t(i * 37 + 11);
  const auto y = decode(TensorType::Q4_K, b, 256);
  for (int e = 0; e < 256; ++e) {
    const int g = e / 64, off = e % 64, s = e / 32;
    const uint8_t byte = uint8_t((32 * g + off % 32) * 37 + 11);
    const int q = off < 32 ? (byte & 15) : (byte >> 4);
    EXPECT_EQ(double(y[e]), 0.5 * sc[s] * q - 0.25 * m[s]) << e;
  }
}

TEST(GgufDequantize, Q6_KHandBlock) {
  // 210 bytes: ql[128], qh[64], int8 scales[16], fp16 d. Element e = 128h + 32k + l has
  // its low 4 bits in ql[64h + 32(k%2) + l] (low nibble for k < 2, high for k >= 2), its high
  // 2 bits at bits 2k..2k+1 of qh[32h + l], scale scales[e / 16]; x = d * scale * (q - 32).
  std::vector<uint8_t> b(210);
  for (int i = 0; i < 128; ++i) b[i] = uint8_t(i * 37 + 11);
  for (int i = 0; i < 64; ++i) b[128 + i] = uint8_t(i * 91 + 5);
  int scale[16];
  for (int j = 0; j < 16; ++j) {
    scale[j] = (j % 2 ? -1 : 1) * (j * 8 + 1) - (j == 15 ? 7 : 0);  // ..., -128 at j = 15
    b[192 + j] = uint8_t(int8_t(scale[j]));
  }
  put16(b, 208, 0x3000);  // d = 0.125
  const auto y = decode(TensorType::Q6_K, b, 256);
  for (int e = 0; e < 256; ++e) {
    const int h = e / 128, k = (e % 128) / 32, l = e % 32;
    const uint8_t lowbyte = uint8_t((64 * h + 32 * (k % 2) + l) * 37 + 11);
    const int low = k < 2 ? (lowbyte & 15) : (lowbyte >> 4);
    const int high = (uint8_t((32 * h + l) * 91 + 5) >> (2 * k)) & 3;
    EXPECT_EQ(double(y[e]), 0.125 * scale[e / 16] * ((low | (high << 4)) - 32)) << e;
  }
}

TEST(GgufDequantize, RejectsPartialBlocks) {
  std::vector<float> out(64);
  const std::vector<uint8_t> b(210);
  EXPECT_THROW(dequantize(TensorType::Q6_K, b.data(), out.data(), 16), Error);
  EXPECT_THROW(dequantize(TensorType::Q8_0, b.data(), out.data(), 33), Error);
  EXPECT_THROW(dequantize(TensorType::F32, b.data(), out.data(), -1), Error);
  EXPECT_EQ(block_elements(TensorType::Q4_K), 256);
  EXPECT_EQ(block_bytes(TensorType::Q4_K), 144);
  EXPECT_EQ(row_bytes(TensorType::Q6_K, 512), 420u);
  EXPECT_THROW(row_bytes(TensorType::Q4_0, 48), Error);
  EXPECT_FALSE(is_supported(10));  // Q2_K
  EXPECT_TRUE(is_supported(3));    // Q4_1
  EXPECT_EQ(block_bytes(TensorType::Q5_K), 176);
  EXPECT_EQ(block_bytes(TensorType::Q8_K), 292);
  EXPECT_TRUE(is_supported(30));
  EXPECT_STREQ(type_name(TensorType::BF16), "BF16");
}

}  // namespace
}  // namespace meadow::gguf
