// NumPy evaluates `x ** 2` on a float64 scalar with libm pow(x, 2.0), which is not always
// x * x (Pendulum seed 0 step 13 differs). GCC folds std::pow(x, 2.0) into x * x, so the
// exponent is read through a volatile to force the real glibc call.
#pragma once

#include <cmath>

namespace meadow::envs {

inline double libm_pow(double x, double exponent) {
  volatile double e = exponent;
  return std::pow(x, e);
}

inline double numpy_square_pow(double x) {
  return libm_pow(x, 2.0);
}

}  // namespace meadow::envs
