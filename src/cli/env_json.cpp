// Env values <-> JSON for the env commands.
#include "cli/env_json.hpp"

#include <cmath>

#include "cli/py_repr.hpp"
#include "meadow/error.hpp"
#include "util/json_parse.hpp"

namespace meadow::cli {

namespace {

std::string number_text(double v, const std::string& dtype) {
  if (dtype == "int64") return std::to_string(static_cast<long long>(v));
  return py_float_repr(v);
}

// Writes values[pos..] as nested lists following shape[dim..].
void nested(const Values& v, const Space& s, size_t dim, size_t& pos, std::string& out) {
  if (dim == s.shape.size()) {
    out += number_text(v.at(pos++), s.dtype);
    return;
  }
  out += '[';
  for (int64_t i = 0; i < s.shape[dim]; ++i) {
    if (i) out += ',';
    nested(v, s, dim + 1, pos, out);
  }
  out += ']';
}

void flatten(const nlohmann::json& a, std::vector<const nlohmann::json*>& out) {
  if (a.is_array())
    for (const auto& x : a) flatten(x, out);
  else
    out.push_back(&a);
}

nlohmann::json bound_json(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

}  // namespace

std::string value_json(const Values& v, const Space& space) {
  if (space.kind == Space::Kind::Discrete) return std::to_string(static_cast<long long>(v.at(0)));
  std::string out;
  size_t pos = 0;
  if (space.shape.empty()) return number_text(v.at(0), space.dtype);
  nested(v, space, 0, pos, out);
  return out;
}

std::string reward_json(double reward, const Space& observation_space) {
  if (observation_space.kind == Space::Kind::Discrete && std::isfinite(reward) &&
      std::floor(reward) == reward && std::fabs(reward) < 1e15)
    return std::to_string(static_cast<long long>(reward));
  return py_float_repr(reward);
}

nlohmann::json space_json(const Space& s) {
  if (s.kind == Space::Kind::Discrete)
    return {{"type", "Discrete"}, {"n", s.n}, {"start", s.start}};
  nlohmann::json low = nlohmann::json::array(), high = nlohmann::json::array();
  for (double v : s.low) low.push_back(bound_json(v));
  for (double v : s.high) high.push_back(bound_json(v));
  return {{"type", "Box"}, {"shape", s.shape}, {"dtype", s.dtype}, {"low", low}, {"high", high}};
}

Values parse_action(const nlohmann::json& a, const Space& space, size_t index,
                    const std::string& source) {
  // The action is quoted cut short: it may be a huge list.
  const std::string where =
      source + ": action " + std::to_string(index) + " (" + util::json_excerpt(a) + ")";
  if (space.kind == Space::Kind::Discrete) {
    if (!a.is_number_integer())
      throw Error(where + ": expected an integer for " + space.describe());
    // get<int64_t>() would wrap an unsigned value past INT64_MAX to a negative one.
    if (a.is_number_unsigned() && a.get<uint64_t>() > uint64_t(INT64_MAX))
      throw Error(where + " is not in " + space.describe());
    Values v{static_cast<double>(a.get<int64_t>())};
    if (!space.contains(v)) throw Error(where + " is not in " + space.describe());
    return v;
  }
  if (!a.is_array()) throw Error(where + ": expected a list of numbers for " + space.describe());
  std::vector<const nlohmann::json*> flat;
  flatten(a, flat);
  if (flat.size() != space.low.size())
    throw Error(where + ": expected " + std::to_string(space.low.size()) + " numbers for " +
                space.describe() + ", got " + std::to_string(flat.size()));
  Values v;
  for (const auto* x : flat) {
    if (!x->is_number()) throw Error(where + ": expected numbers for " + space.describe());
    const double d = x->get<double>();
    const double rounded =
        space.dtype == "float32" ? static_cast<double>(static_cast<float>(d)) : d;
    // 1e39 is a finite double but no float32: it would reach the env as inf.
    if (!std::isfinite(rounded))
      throw Error(where + ": " + util::json_excerpt(*x) + " is out of range of " + space.dtype);
    v.push_back(rounded);
  }
  return v;
}

}  // namespace meadow::cli
