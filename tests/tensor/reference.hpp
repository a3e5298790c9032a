// Plain double-precision reference loops and random data for the tensor tests.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "gguf_quantize.hpp"
#include "meadow/runtime/gguf.hpp"
#include "tensor/ops.hpp"

namespace meadow::tensor::testing {

inline std::vector<float> random_floats(int64_t n, uint32_t seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, scale);
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) x = dist(rng);
  return v;
}

// y[t, r] = sum_c x[t, c] * w[r, c], in double.
inline std::vector<double> ref_matmul(const std::vector<float>& w, int64_t rows, int64_t cols,
                                      const float* x, int64_t n) {
  std::vector<double> y(static_cast<size_t>(n * rows));
  for (int64_t t = 0; t < n; ++t)
    for (int64_t r = 0; r < rows; ++r) {
      double s = 0;
      for (int64_t c = 0; c < cols; ++c) s += double(x[t * cols + c]) * w[r * cols + c];
      y[t * rows + r] = s;
    }
  return y;
}

// Tolerance for a float-accumulated dot product of length n against a double reference:
// relative to the sum of |terms|, which bounds the rounding error of any summation order.
inline double dot_tolerance(const std::vector<float>& w, int64_t row, int64_t cols,
                            const float* x) {
  double mag = 0;
  for (int64_t c = 0; c < cols; ++c) mag += std::fabs(double(x[c]) * w[row * cols + c]);
  return 1e-5 * mag + 1e-6;
}

// Random weights quantized with the gguf reference quantizer, with their reference decoding.
struct Quantized {
  std::vector<uint8_t> bytes;
  std::vector<float> dequant;  // what the kernels must multiply by
  tensor::Weights w;
};

inline Quantized make_weights(gguf::TensorType type, int64_t rows, int64_t cols, uint32_t seed) {
  Quantized q;
  const auto src = random_floats(rows * cols, seed, 0.5f);
  q.bytes = gguf::quantize(type, src.data(), rows * cols);
  q.dequant.resize(src.size());
  gguf::dequantize(type, q.bytes.data(), q.dequant.data(), rows * cols);
  q.w = tensor::Weights{type, q.bytes.data(), rows, cols};
  return q;
}

}  // namespace meadow::tensor::testing
