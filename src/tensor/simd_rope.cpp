// Rotary position embedding's rotation in vectors (tensor::rope). Compiled without fused
// multiply-adds (CMakeLists.txt): the products are rounded before they are summed, as the scalar
// formula rounds them, so the floats are the same on every target.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tensor/simd_rope.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include "tensor/simd_kernels.hpp"

HWY_BEFORE_NAMESPACE();
namespace meadow::tensor::detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Rotates each token's heads by its angles (rope.cpp states the layout). A token's cos and sin
// are first spread over a whole head, the sines signed, so every value is v * C + partner * S:
// its partner is the neighbouring lane (Normal) or the other half (Neox). Products then sums,
// as the scalar formula rounds them: the same floats.
void RopeF32(float* x, int64_t n_tokens, int64_t n_heads, int64_t hd, const float* cos,
             const float* sin, bool neox) {
  const hn::ScalableTag<float> d;
  const int64_t N = int64_t(hn::Lanes(d));
  const int64_t half = hd / 2;
  HWY_ALIGN float C[kRopeMaxHeadDim], S[kRopeMaxHeadDim];
  for (int64_t t = 0; t < n_tokens; ++t) {
    const float* cs = cos + t * half;
    const float* sn = sin + t * half;
    for (int64_t i = 0; i < half; ++i) {
      const int64_t a = neox ? i : 2 * i, b = neox ? i + half : 2 * i + 1;
      C[a] = C[b] = cs[i];
      S[a] = -sn[i];
      S[b] = sn[i];
    }
    for (int64_t h = 0; h < n_heads; ++h) {
      float* v = x + (t * n_heads + h) * hd;
      int64_t j = 0;
      if (neox) {
        for (; j + N <= half; j += N) {
          const auto a = hn::LoadU(d, v + j), b = hn::LoadU(d, v + j + half);
          const auto ra = hn::Add(hn::Mul(a, hn::Load(d, C + j)), hn::Mul(b, hn::Load(d, S + j)));
          const auto rb = hn::Add(hn::Mul(b, hn::LoadU(d, C + j + half)),
                                  hn::Mul(a, hn::LoadU(d, S + j + half)));
          hn::StoreU(ra, d, v + j);
          hn::StoreU(rb, d, v + j + half);
        }
        for (; j < half; ++j) {
          const float a = v[j], b = v[j + half];
          v[j] = a * C[j] + b * S[j];
          v[j + half] = b * C[j + half] + a * S[j + half];
        }
      } else {
#if HWY_TARGET != HWY_SCALAR  // pairs of lanes: vectors of 2+ lanes
        for (; j + N <= hd; j += N) {
          const auto w = hn::LoadU(d, v + j);
          const auto r = hn::Add(hn::Mul(w, hn::Load(d, C + j)),
                                 hn::Mul(hn::Shuffle2301(w), hn::Load(d, S + j)));
          hn::StoreU(r, d, v + j);
        }
#endif
        for (; j < hd; j += 2) {
          const float a = v[j], b = v[j + 1];
          v[j] = a * C[j] + b * S[j];
          v[j + 1] = b * C[j + 1] + a * S[j + 1];
        }
      }
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace meadow::tensor::detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace meadow::tensor::detail {

HWY_EXPORT(RopeF32);

void rope_f32(float* x, int64_t n_tokens, int64_t n_heads, int64_t head_dim, const float* cos,
              const float* sin, bool neox) {
  HWY_DYNAMIC_DISPATCH(RopeF32)(x, n_tokens, n_heads, head_dim, cos, sin, neox);
}

}  // namespace meadow::tensor::detail
#endif
