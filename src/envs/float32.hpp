// Rounding to float32 the way NumPy's astype(np.float32) does.
#pragma once

#include <initializer_list>

#include "meadow/env.hpp"

namespace meadow::envs {

// Values rounded to float32, one element at a time. Beware: GCC 12.2 at -O2 folds away the
// rounding when it SLP-vectorizes two adjacent (double)(float)x stores, e.g.
// Values{static_cast<float>(a), static_cast<float>(b)} returns a and b unrounded. meadow_envs
// is built with -fno-tree-slp-vectorize for that reason; this helper is safe either way.
inline Values float32_values(std::initializer_list<double> xs) {
  Values out;
  out.reserve(xs.size());
  for (double x : xs) out.push_back(static_cast<float>(x));
  return out;
}

}  // namespace meadow::envs
