// Space::contains and Space::describe, following gymnasium.spaces.Discrete / Box.
#include <charconv>
#include <cmath>
#include <string>

#include "meadow/env.hpp"

namespace meadow {
namespace {

bool is_integral(double v) {
  return std::isfinite(v) && std::floor(v) == v;
}

// Rounds v to the space's dtype the way numpy's cast would before comparing bounds.
double as_dtype(double v, const std::string& dtype) {
  return dtype == "float32" ? static_cast<double>(static_cast<float>(v)) : v;
}

// Shortest round-trip text in the dtype, with a ".0" so that it reads as a float like numpy's.
std::string number_text(double v, const std::string& dtype) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (std::isnan(v)) return "nan";
  char buf[64];
  auto res = dtype == "float32" ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(v))
                                : std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, res.ptr);
  if (dtype != "int64" && s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

// gymnasium Box repr: a single number when all bounds are equal, else the list.
std::string bounds_text(const std::vector<double>& b, const std::string& dtype) {
  bool all_equal = !b.empty();
  for (double v : b) all_equal = all_equal && v == b.front();
  if (all_equal) return number_text(b.front(), dtype);
  std::string s = "[";
  for (size_t i = 0; i < b.size(); ++i) s += (i ? " " : "") + number_text(b[i], dtype);
  return s + "]";
}

}  // namespace

bool Space::contains(const Values& v) const {
  if (kind == Kind::Discrete)
    return v.size() == 1 && is_integral(v[0]) && v[0] >= static_cast<double>(start) &&
           v[0] < static_cast<double>(start + n);
  if (v.size() != low.size()) return false;
  for (size_t i = 0; i < v.size(); ++i) {
    if (dtype == "int64" && !is_integral(v[i])) return false;
    const double x = as_dtype(v[i], dtype);
    if (!(x >= low[i] && x <= high[i])) return false;  // also rejects NaN
  }
  return true;
}

std::string Space::describe() const {
  if (kind == Kind::Discrete)
    return "Discrete(" + std::to_string(n) + (start ? ", start=" + std::to_string(start) : "") +
           ")";
  std::string shape_text = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    shape_text += (i ? ", " : "") + std::to_string(shape[i]);
  shape_text += shape.size() == 1 ? ",)" : ")";
  return "Box(" + bounds_text(low, dtype) + ", " + bounds_text(high, dtype) + ", " + shape_text +
         ", " + dtype + ")";
}

}  // namespace meadow
