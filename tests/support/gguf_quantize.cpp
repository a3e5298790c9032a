// Reference quantizers: round to nearest with the usual max-based scale choice. Scales are
// rounded *up* to what fp16 / 6-bit / 8-bit fields can hold, so that no element has to be
// clamped: every element's error then stays within half of its effective step (Q8_0, Q4_K),
// or one step for the one-sided extreme of the signed types (Q4_0, Q6_K), as the tests check.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "gguf/blocks.hpp"
#include "gguf/half.hpp"
#include "gguf_quantize.hpp"
#include "meadow/error.hpp"
#include "meadow/runtime/gguf.hpp"

namespace meadow::gguf {
namespace {

using namespace blocks;

// The smallest fp16 value >= v (v >= 0 and finite).
uint16_t half_at_least(float v) {
  uint16_t h = float_to_half(v);
  if (half_to_float(h) < v) ++h;  // positive halves are ordered like their bit patterns
  if (h >= 0x7c00) throw Error("quantize: scale " + std::to_string(v) + " exceeds the fp16 range");
  return h;
}

// fp16 scale with the sign of v and magnitude >= |v|.
uint16_t signed_half_at_least(float v) {
  const uint16_t h = half_at_least(std::fabs(v));
  return v < 0 ? uint16_t(h | 0x8000) : h;
}

int nearest(float x) {
  return int(std::nearbyint(x));
}

// The element of largest magnitude, keeping its sign.
float signed_absmax(const float* x, int n) {
  float m = 0;
  for (int i = 0; i < n; ++i) {
    if (std::fabs(x[i]) > std::fabs(m)) m = x[i];
  }
  return m;
}

void quant_q8_0(const float* x, uint8_t* out, int64_t nb) {
  for (int64_t b = 0; b < nb; ++b, x += kQ8_0Elems, out += kQ8_0Bytes) {
    const float amax = std::fabs(signed_absmax(x, kQ8_0Elems));
    const uint16_t dh = half_at_least(amax / 127.0f);
    const float d = half_to_float(dh);
    store_u16(out, dh);
    auto* q = reinterpret_cast<int8_t*>(out + 2);
    for (int j = 0; j < kQ8_0Elems; ++j) {
      q[j] = int8_t(d > 0 ? std::clamp(nearest(x[j] / d), -127, 127) : 0);
    }
  }
}

void quant_q4_0(const float* x, uint8_t* out, int64_t nb) {
  for (int64_t b = 0; b < nb; ++b, x += kQ4_0Elems, out += kQ4_0Bytes) {
    // The extreme element maps to -8, the one level with no positive counterpart.
    const uint16_t dh = signed_half_at_least(signed_absmax(x, kQ4_0Elems) / -8.0f);
    const float d = half_to_float(dh);
    store_u16(out, dh);
    uint8_t* qs = out + 2;
    for (int j = 0; j < kQ4_0Elems / 2; ++j) {
      const int lo = d != 0 ? std::clamp(nearest(x[j] / d) + 8, 0, 15) : 8;
      const int hi = d != 0 ? std::clamp(nearest(x[j + 16] / d) + 8, 0, 15) : 8;
      qs[j] = uint8_t(lo | (hi << 4));
    }
  }
}

// Q4_K and Q5_K share their super-block scales: 8 sub-blocks of 32, each covering
// [-m_j, max_j] with m_j = -min(0, min x) in `levels` steps. Mins are rounded up first, then
// the scales are sized for the range the rounded mins leave.
struct KScales {
  uint16_t dh = 0, dminh = 0;
  int ls[8] = {}, lm[8] = {};
  float step[8] = {};  // d * ls[j], as the dequantizer computes it
  float mq[8] = {};    // dmin * lm[j]
};

KScales k_scales(const float* x, int levels) {
  float mins[8], maxs[8], max_min = 0;
  for (int j = 0; j < 8; ++j) {
    const float* s = x + 32 * j;
    float lo = 0, hi = 0;
    for (int l = 0; l < 32; ++l) lo = std::min(lo, s[l]), hi = std::max(hi, s[l]);
    mins[j] = -lo;
    maxs[j] = hi;
    max_min = std::max(max_min, -lo);
  }
  KScales k;
  k.dminh = half_at_least(max_min / 63.0f);
  const float dmin = half_to_float(k.dminh);
  float steps[8], max_step = 0;
  for (int j = 0; j < 8; ++j) {
    k.lm[j] = dmin > 0 ? std::min(63, int(std::ceil(mins[j] / dmin))) : 0;
    k.mq[j] = dmin * float(k.lm[j]);
    steps[j] = (maxs[j] + k.mq[j]) / float(levels);
    max_step = std::max(max_step, steps[j]);
  }
  k.dh = half_at_least(max_step / 63.0f);
  const float d = half_to_float(k.dh);
  for (int j = 0; j < 8; ++j) {
    k.ls[j] = d > 0 ? std::min(63, int(std::ceil(steps[j] / d))) : 0;
    k.step[j] = d * float(k.ls[j]);
  }
  return k;
}

// Writes d, dmin and the 12 scale bytes (the inverse of q4k_scale_min's packing).
void put_k_scales(const KScales& k, uint8_t* out) {
  store_u16(out, k.dh);
  store_u16(out + 2, k.dminh);
  uint8_t* sc = out + kQ4_KScalesAt;
  for (int i = 0; i < 4; ++i) {
    sc[i] = uint8_t(k.ls[i] | ((k.ls[i + 4] >> 4) << 6));
    sc[i + 4] = uint8_t(k.lm[i] | ((k.lm[i + 4] >> 4) << 6));
    sc[i + 8] = uint8_t((k.ls[i + 4] & 0x0f) | ((k.lm[i + 4] & 0x0f) << 4));
  }
}

int k_level(const KScales& k, int j, float x, int levels) {
  return k.step[j] > 0 ? std::clamp(nearest((x + k.mq[j]) / k.step[j]), 0, levels) : 0;
}

void quant_q4_k(const float* x, uint8_t* out, int64_t nb) {
  for (int64_t b = 0; b < nb; ++b, x += kQK, out += kQ4_KBytes) {
    const KScales k = k_scales(x, 15);
    put_k_scales(k, out);
    uint8_t* qs = out + kQ4_KQsAt;
    std::memset(qs, 0, 128);
    for (int j = 0; j < 8; ++j) {
      uint8_t* q = qs + 32 * (j / 2);
      const int shift = (j % 2) * 4;
      for (int l = 0; l < 32; ++l)
        q[l] = uint8_t(q[l] | (k_level(k, j, x[32 * j + l], 15) << shift));
    }
  }
}

void quant_q5_k(const float* x, uint8_t* out, int64_t nb) {
  for (int64_t b = 0; b < nb; ++b, x += kQK, out += kQ5_KBytes) {
    const KScales k = k_scales(x, 31);
    put_k_scales(k, out);
    uint8_t* qh = out + kQ5_KQhAt;
    uint8_t* qs = out + kQ5_KQsAt;
    std::memset(qh, 0, 32 + 128);
    for (int j = 0; j < 8; ++j) {
      uint8_t* q = qs + 32 * (j / 2);
      const int shift = (j % 2) * 4;
      for (int l = 0; l < 32; ++l) {
        const int v = k_level(k, j, x[32 * j + l], 31);
        q[l] = uint8_t(q[l] | ((v & 0x0f) << shift));
        qh[l] = uint8_t(qh[l] | ((v >> 4) << j));
      }
    }
  }
}

// The largest fp16 value <= v (finite v).
uint16_t half_at_most(float v) {
  if (v < 0) return uint16_t(half_at_least(-v) | 0x8000);
  uint16_t h = float_to_half(v);
  if (half_to_float(h) > v) --h;  // h >= 1 here: half(h) > v >= 0
  return h;
}

// Q4_1 / Q5_1: min m (rounded down to fp16) and step d (rounded up) cover [min, max] in
// `levels` steps, so no element is clamped. `hbits`: Q5_1's fifth bits, or null for Q4_1.
void quant_affine(const float* x, uint8_t* out, int levels, uint8_t* hbits) {
  float lo = x[0], hi = x[0];
  for (int j = 1; j < 32; ++j) lo = std::min(lo, x[j]), hi = std::max(hi, x[j]);
  const uint16_t mh = half_at_most(lo);
  const float m = half_to_float(mh);
  const uint16_t dh = half_at_least((hi - m) / float(levels));
  const float d = half_to_float(dh);
  store_u16(out, dh);
  store_u16(out + 2, mh);
  uint32_t qh = 0;
  uint8_t* qs = out + (hbits ? 8 : 4);
  for (int j = 0; j < 16; ++j) {
    const int lo_q = d > 0 ? std::clamp(nearest((x[j] - m) / d), 0, levels) : 0;
    const int hi_q = d > 0 ? std::clamp(nearest((x[j + 16] - m) / d), 0, levels) : 0;
    qs[j] = uint8_t((lo_q & 0x0f) | ((hi_q & 0x0f) << 4));
    qh |= uint32_t(lo_q >> 4) << j | uint32_t(hi_q >> 4) << (j + 16);
  }
  if (hbits) {
    for (int i = 0; i < 4; ++i) hbits[i] = uint8_t(qh >> (8 * i));
  }
}

void quant_q5_0(const float* x, uint8_t* out, int64_t nb) {
  for (int64_t b = 0; b < nb; ++b, x += kQ5_0Elems, out += kQ5_0Bytes) {
    // As Q4_0: the extreme element maps to -16.
    const uint16_t dh = signed_half_at_least(signed_absmax(x, 32) / -16.0f);
    const float d = half_to_float(dh);
    store_u16(out, dh);
    uint32_t qh = 0;
    uint8_t* qs = out + 6;
    for (int j = 0; j < 16; ++j) {
      const int lo = d != 0 ? std::clamp(nearest(x[j] / d) + 16, 0, 31) : 16;
      const int hi = d != 0 ? std::clamp(nearest(x[j + 16] / d) + 16, 0, 31) : 16;
      qs[j] = uint8_t((lo & 0x0f) | ((hi & 0x0f) << 4));
      qh |= uint32_t(lo >> 4) << j | uint32_t(hi >> 4) << (j + 16);
    }
    for (int i = 0; i < 4; ++i) out[2 + i] = uint8_t(qh >> (8 * i));
  }
}

void quant_q8_k(const float* x, uint8_t* out, int64_t nb) {
  for (int64_t b = 0; b < nb; ++b, x += kQK, out += kQ8_KBytes) {
    const float amax = std::fabs(signed_absmax(x, kQK));
    const float d = amax / 127.0f;
    std::memcpy(out, &d, 4);
    auto* q = reinterpret_cast<int8_t*>(out + kQ8_KQsAt);
    for (int j = 0; j < kQK; ++j)
      q[j] = int8_t(d > 0 ? std::clamp(nearest(x[j] / d), -127, 127) : 0);
    for (int g = 0; g < 16; ++g) {
      int sum = 0;
      for (int l = 0; l < 16; ++l) sum += q[16 * g + l];
      store_u16(out + kQ8_KSumsAt + 2 * g, uint16_t(int16_t(sum)));
    }
  }
}

void quant_q6_k(const float* x, uint8_t* out, int64_t nb) {
  for (int64_t b = 0; b < nb; ++b, x += kQK, out += kQ6_KBytes) {
    // Sub-block j's step maps its extreme element to -32; steps are stored as int8 multiples
    // of d, rounded away from zero.
    float steps[16], max_step = 0;
    for (int j = 0; j < 16; ++j) {
      steps[j] = signed_absmax(x + 16 * j, 16) / -32.0f;
      max_step = std::max(max_step, std::fabs(steps[j]));
    }
    const uint16_t dh = half_at_least(max_step / 127.0f);
    const float d = half_to_float(dh);
    auto* sc = reinterpret_cast<int8_t*>(out + kQ6_KScalesAt);
    for (int j = 0; j < 16; ++j) {
      const int mag = d > 0 ? std::min(127, int(std::ceil(std::fabs(steps[j]) / d))) : 0;
      sc[j] = int8_t(steps[j] < 0 ? -mag : mag);
    }
    store_u16(out + kQ6_KDAt, dh);
    uint8_t* ql = out;
    uint8_t* qh = out + kQ6_KQhAt;
    std::memset(out, 0, kQ6_KScalesAt);
    for (int e = 0; e < kQK; ++e) {
      const int j = e / 16;
      const float step = d * float(sc[j]);  // as the dequantizer computes it
      const int q = (step != 0 ? std::clamp(nearest(x[e] / step), -32, 31) : 0) + 32;
      // Element e = 128h + 32k + l: nibble in ql[64h + 32(k&1) + l] (high for k >= 2), top
      // two bits at bit 2k of qh[32h + l].
      const int h = e / 128, k = (e % 128) / 32, l = e % 32;
      ql[64 * h + 32 * (k & 1) + l] |= uint8_t((q & 0x0f) << (k >= 2 ? 4 : 0));
      qh[32 * h + l] |= uint8_t((q >> 4) << (2 * k));
    }
  }
}

void check_finite(const float* src, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if (!std::isfinite(src[i])) {
      throw Error("quantize: element " + std::to_string(i) + " is not finite");
    }
  }
}

}  // namespace

std::vector<uint8_t> quantize(TensorType t, const float* src, int64_t n) {
  if (n < 0) throw Error("quantize: negative element count " + std::to_string(n));
  std::vector<uint8_t> out(row_bytes(t, static_cast<uint64_t>(n)));
  if (n == 0) return out;
  check_finite(src, n);
  const int64_t nb = n / block_elements(t);
  switch (t) {
    case TensorType::F32:
      std::memcpy(out.data(), src, size_t(n) * 4);
      break;
    case TensorType::F16:
      for (int64_t i = 0; i < n; ++i) {
        const uint16_t h = float_to_half(src[i]);
        if ((h & 0x7fff) == 0x7c00) {
          throw Error("quantize: element " + std::to_string(i) + " (" + std::to_string(src[i]) +
                      ") exceeds the F16 range");
        }
        store_u16(out.data() + 2 * i, h);
      }
      break;
    case TensorType::BF16:
      for (int64_t i = 0; i < n; ++i) {
        const uint16_t h = float_to_bf16(src[i]);
        if ((h & 0x7fff) == 0x7f80) {
          throw Error("quantize: element " + std::to_string(i) + " exceeds the BF16 range");
        }
        store_u16(out.data() + 2 * i, h);
      }
      break;
    case TensorType::Q8_0:
      quant_q8_0(src, out.data(), nb);
      break;
    case TensorType::Q4_0:
      quant_q4_0(src, out.data(), nb);
      break;
    case TensorType::Q4_1:
      for (int64_t b = 0; b < nb; ++b)
        quant_affine(src + 32 * b, out.data() + kQ4_1Bytes * b, 15, nullptr);
      break;
    case TensorType::Q5_0:
      quant_q5_0(src, out.data(), nb);
      break;
    case TensorType::Q5_1:
      for (int64_t b = 0; b < nb; ++b) {
        uint8_t* o = out.data() + kQ5_1Bytes * b;
        quant_affine(src + 32 * b, o, 31, o + 4);
      }
      break;
    case TensorType::Q4_K:
      quant_q4_k(src, out.data(), nb);
      break;
    case TensorType::Q5_K:
      quant_q5_k(src, out.data(), nb);
      break;
    case TensorType::Q8_K:
      quant_q8_k(src, out.data(), nb);
      break;
    case TensorType::Q6_K:
      quant_q6_k(src, out.data(), nb);
      break;
  }
  return out;
}

}  // namespace meadow::gguf
