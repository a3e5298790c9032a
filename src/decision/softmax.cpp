#include "decision/softmax.hpp"

#include <algorithm>
#include <cmath>

#include "tensor/ops.hpp"

namespace meadow::decision {

void softmax(const std::vector<double>& z, std::vector<double>& p) {
  p.resize(z.size());
  if (z.empty()) return;
  const double mx = *std::max_element(z.begin(), z.end());
  double sum = 0.0;
  for (size_t i = 0; i < z.size(); ++i) sum += p[i] = std::exp(z[i] - mx);
  for (double& v : p) v /= sum;
}

std::vector<double> softmax(const std::vector<double>& z) {
  std::vector<double> p;
  softmax(z, p);
  return p;
}

TopToken top_token(const float* row, int64_t n, std::vector<float>& p) {
  // The SIMD softmax of the tensor layer: a full-vocabulary row per answer position would
  // otherwise cost more than the forward pass of a small model.
  p.assign(row, row + n);
  tensor::softmax(p.data(), n);
  const int64_t best = std::max_element(row, row + n) - row;
  return {int32_t(best), double(p[size_t(best)])};
}

TopToken top_token(const float* row, int64_t n) {
  std::vector<float> p;
  return top_token(row, n, p);
}

}  // namespace meadow::decision
