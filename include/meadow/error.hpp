// The one exception type meadow throws for bad input (files, arguments, kwargs, JSON).
// Callers at the edge (CLI, server) turn it into one clear line and exit code 2.
#pragma once

#include <stdexcept>
#include <string>

namespace meadow {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace meadow
