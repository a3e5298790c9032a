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
#include "meadow/error.hpp"
#include "meadow/gguf.hpp"

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

void quant_q4_k(const float* x, uint8_t* out, int64_t nb) {
  for (int64_t b = 0; b < nb; ++b, x += kQK, out += kQ4_KBytes) {
    // Sub-block j covers [-m_j, max_j] with m_j = -min(0, min x); mins are rounded up first,
    // then the scales are sized for the range the rounded mins leave.
    float mins[8], maxs[8], max_min = 0;
    for (int j = 0; j < 8; ++j) {
      const float* s = x + 32 * j;
      float lo = 0, hi = 0;
      for (int l = 0; l < 32; ++l) lo = std::min(lo, s[l]), hi = std::max(hi, s[l]);
      mins[j] = -lo;
      maxs[j] = hi;
      max_min = std::max(max_min, -lo);
    }
    const uint16_t dminh = half_at_least(max_min / 63.0f);
    const float dmin = half_to_float(dminh);
    int lm[8];
    float mq[8], steps[8], max_step = 0;
    for (int j = 0; j < 8; ++j) {
      lm[j] = dmin > 0 ? std::min(63, int(std::ceil(mins[j] / dmin))) : 0;
      mq[j] = dmin * float(lm[j]);
      steps[j] = (maxs[j] + mq[j]) / 15.0f;
      max_step = std::max(max_step, steps[j]);
    }
    const uint16_t dh = half_at_least(max_step / 63.0f);
    const float d = half_to_float(dh);
    int ls[8];
    for (int j = 0; j < 8; ++j) ls[j] = d > 0 ? std::min(63, int(std::ceil(steps[j] / d))) : 0;

    store_u16(out, dh);
    store_u16(out + 2, dminh);
    uint8_t* sc = out + kQ4_KScalesAt;  // inverse of q4k_scale_min's packing
    for (int k = 0; k < 4; ++k) {
      sc[k] = uint8_t(ls[k] | ((ls[k + 4] >> 4) << 6));
      sc[k + 4] = uint8_t(lm[k] | ((lm[k + 4] >> 4) << 6));
      sc[k + 8] = uint8_t((ls[k + 4] & 0x0f) | ((lm[k + 4] & 0x0f) << 4));
    }
    uint8_t* qs = out + kQ4_KQsAt;
    std::memset(qs, 0, 128);
    for (int j = 0; j < 8; ++j) {
      const float step = d * float(ls[j]);  // as the dequantizer computes it
      const float* s = x + 32 * j;
      uint8_t* q = qs + 32 * (j / 2);
      const int shift = (j % 2) * 4;
      for (int l = 0; l < 32; ++l) {
        const int v = step > 0 ? std::clamp(nearest((s[l] + mq[j]) / step), 0, 15) : 0;
        q[l] = uint8_t(q[l] | (v << shift));
      }
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
    case TensorType::Q4_K:
      quant_q4_k(src, out.data(), nb);
      break;
    case TensorType::Q6_K:
      quant_q6_k(src, out.data(), nb);
      break;
  }
  return out;
}

}  // namespace meadow::gguf
