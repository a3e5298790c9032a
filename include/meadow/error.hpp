// The exception types meadow throws. Error: bad input (files, arguments, kwargs, JSON); the
// edges (CLI, server) turn it into one clear line and exit code 2, or a 400 answer.
// ModelError: a fault of the model itself (logits that are NaN or Inf: broken weights), not of
// the input; its message names the model file. The CLI exits 3 on it, the server answers 500
// "model_error". It derives from Error, so code that only knows Error still stops on it.
//
// Stability: everything here is stable (kept across releases; fields may be added) unless
// marked "Experimental:", which may change or go.
#pragma once

#include <stdexcept>
#include <string>

namespace meadow {

// Bad input; what() is one line naming the file, field or argument at fault.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The model is broken (non-finite logits); what() names the model file.
struct ModelError : Error {
  using Error::Error;
};

}  // namespace meadow
