// The one alias for observations and actions: a flat list of numbers. A Discrete value is one
// element holding the index; a Box value holds its components (meadow/env.hpp).
#pragma once

#include <vector>

namespace meadow {

using Values = std::vector<double>;

}  // namespace meadow
