// The one alias for observations and actions: a flat list of numbers. A Discrete value is one
// element holding the index; a Box value holds its components (meadow/env.hpp).
//
// Stability: everything here is stable (kept across releases; fields may be added) unless
// marked "Experimental:", which may change or go.
#pragma once

#include <vector>

namespace meadow {

using Values = std::vector<double>;

}  // namespace meadow
