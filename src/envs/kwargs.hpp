// Reading Gymnasium-style keyword arguments (already type-checked by the registry).
#pragma once

#include <string>

#include "meadow/env.hpp"
#include "meadow/error.hpp"

namespace meadow::envs {

// The JSON kinds a kwarg may take; a rule may allow several (bitwise or).
enum KwargType : unsigned {
  kBool = 1u << 0,
  kInt = 1u << 1,     // JSON integer
  kNumber = 1u << 2,  // integer or float
  kString = 1u << 3,
  kArray = 1u << 4,
  kNull = 1u << 5,
};

struct KwargRule {
  std::string name;
  unsigned types = 0;  // KwargType bits
};

// kwargs[name] if present and not null, else fallback.
template <class T>
T kwarg_or(const Kwargs& kwargs, const std::string& name, T fallback) {
  auto it = kwargs.find(name);
  if (it == kwargs.end() || it->is_null()) return fallback;
  return it->template get<T>();
}

}  // namespace meadow::envs
