#include "diffusion/softmax.hpp"

#include <algorithm>
#include <cmath>

#include "tensor/ops.hpp"

namespace meadow::diffusion {

std::vector<double> softmax(const std::vector<double>& z) {
  std::vector<double> p(z.size());
  if (z.empty()) return p;
  const double mx = *std::max_element(z.begin(), z.end());
  double sum = 0.0;
  for (size_t i = 0; i < z.size(); ++i) sum += p[i] = std::exp(z[i] - mx);
  for (double& v : p) v /= sum;
  return p;
}

TopToken top_token(const float* row, int64_t n) {
  // The SIMD softmax of the tensor layer: a full-vocabulary row per answer position would
  // otherwise cost more than the forward pass of a small model.
  std::vector<float> p(row, row + n);
  tensor::softmax(p.data(), n);
  const int64_t best = std::max_element(row, row + n) - row;
  return {int32_t(best), double(p[size_t(best)])};
}

}  // namespace meadow::diffusion
