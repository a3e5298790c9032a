#include "diffusion/softmax.hpp"

#include <algorithm>
#include <cmath>

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
  int64_t best = 0;
  for (int64_t i = 1; i < n; ++i)
    if (row[i] > row[best]) best = i;
  const double mx = row[best];
  double sum = 0.0;
  for (int64_t i = 0; i < n; ++i) sum += std::exp(double(row[i]) - mx);
  return {int32_t(best), 1.0 / sum};
}

}  // namespace meadow::diffusion
