#include "generate/sampling.hpp"

#include "tensor/ops.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace meadow::generate {

Pick pick_token(const float* logits, int64_t n, double temperature, double top_p,
                Confidence confidence, std::mt19937_64& rng) {
  // The row's distribution in float, through the SIMD softmax: over a whole vocabulary per
  // masked position per step, this was most of a small model's sampling time in double.
  const float inv_t = float(1.0 / (temperature > 0 ? temperature : 1.0));
  // One buffer per thread, reused by every row of every step (no allocation per row).
  thread_local std::vector<float> p;
  p.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) p[size_t(i)] = logits[i] * inv_t;
  tensor::softmax(p.data(), n);

  int32_t token = 0;
  if (temperature <= 0) {
    token = int32_t(std::max_element(p.begin(), p.end()) - p.begin());
  } else {
    // Nucleus: the most probable tokens whose mass reaches top_p, sampled by their mass.
    std::vector<int32_t> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
      return p[size_t(a)] > p[size_t(b)] || (p[size_t(a)] == p[size_t(b)] && a < b);
    });
    double mass = 0;
    size_t keep = 0;
    while (keep < order.size() && (keep == 0 || mass < top_p)) mass += p[size_t(order[keep++])];
    // A uniform draw in [0, mass) from 53 random bits: the same on every platform.
    double u = double(rng() >> 11) * 0x1.0p-53 * mass;
    token = order[keep - 1];
    for (size_t i = 0; i < keep; ++i) {
      u -= p[size_t(order[i])];
      if (u < 0) {
        token = order[i];
        break;
      }
    }
  }

  Pick out;
  out.token = token;
  switch (confidence) {
    case Confidence::Probability:
      out.confidence = p[size_t(token)];
      break;
    case Confidence::Margin: {
      double a = 0, b = 0;
      for (const double x : p) {
        if (x > a) {
          b = a;
          a = x;
        } else if (x > b) {
          b = x;
        }
      }
      out.confidence = a - b;
      break;
    }
    case Confidence::NegEntropy: {
      double h = 0;
      for (const float x : p)
        if (x > 0) h -= double(x) * std::log(double(x));
      out.confidence = -h;
      break;
    }
  }
  return out;
}

}  // namespace meadow::generate
