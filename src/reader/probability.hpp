// Probabilities from logits as the PyTorch reference computes them: in float32 (torch.sigmoid,
// torch.softmax), then widened. A probability that saturates there (exactly 1 or 0) saturates
// here too, so two options that both hold "for certain" tie as they tie in the reference, and
// the first one wins in both.
#pragma once

#include <algorithm>
#include <cmath>

namespace meadow::reader {

inline double sigmoid32(float x) {
  return double(1.0f / (1.0f + std::exp(-x)));
}

// out[k] = softmax(x)[k] in float32.
inline void softmax32(const float* x, int n, double* out) {
  float top = x[0], sum = 0;
  for (int k = 1; k < n; ++k) top = std::max(top, x[k]);
  for (int k = 0; k < n; ++k) sum += std::exp(x[k] - top);
  for (int k = 0; k < n; ++k) out[k] = double(std::exp(x[k] - top) / sum);
}

}  // namespace meadow::reader
