// Replays the recorded Gymnasium traces in tests/data/gym-traces through meadow::make and
// reports the first difference. Comparison rules are the traces' README: float32 values are
// parsed as double then cast to float; rewards, flags and ints are compared exactly.
// Usage: EXPECT_EQ(meadow::test::replay_trace(meadow::test::load_trace("X.json")), "");
#pragma once

#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "meadow/env.hpp"
#include "meadow/error.hpp"

namespace meadow::test {

inline nlohmann::json load_trace(const std::string& file) {
  const std::string path = std::string(MEADOW_TEST_DATA_DIR) + "/gym-traces/" + file;
  std::ifstream in(path);
  if (!in) throw Error("cannot open trace " + path);
  return nlohmann::json::parse(in);
}

inline float as_f32(const nlohmann::json& v) {
  return static_cast<float>(v.get<double>());
}

// A recorded obs/action as our Values: ints as one element, float lists cast per dtype.
inline Values recorded_values(const nlohmann::json& v, const std::string& dtype) {
  if (!v.is_array()) return {v.get<double>()};
  Values out;
  for (const auto& x : v)
    out.push_back(dtype == "float32" ? static_cast<double>(as_f32(x)) : x.get<double>());
  return out;
}

inline std::string values_text(const Values& v) {
  std::ostringstream s;
  s.precision(17);
  s << "[";
  for (size_t i = 0; i < v.size(); ++i) s << (i ? ", " : "") << v[i];
  return s.str() + "]";
}

// Only the keys Gymnasium recorded are compared (scalars become one-element lists).
inline std::string info_diff(const nlohmann::json& want, const Info& got) {
  for (const auto& [key, value] : want.items()) {
    auto it = got.find(key);
    if (it == got.end()) return "info lacks '" + key + "'";
    const Values w = recorded_values(value, "float64");
    if (w != it->second)
      return "info '" + key + "' " + values_text(it->second) + " != " + values_text(w);
  }
  return "";
}

// Replays every episode; returns "" when all match, else where and what differs.
inline std::string replay_trace(const nlohmann::json& trace, size_t max_episodes = SIZE_MAX) {
  const std::string id = trace["env_id"];
  auto env = make(id, trace["kwargs"]);
  const std::string obs_dtype = env->observation_space().dtype;
  const std::string act_dtype = env->action_space().dtype;
  size_t n = 0;
  for (const auto& ep : trace["episodes"]) {
    if (n++ >= max_episodes) break;
    const uint64_t seed = ep["seed"];
    const std::string where = id + " seed " + std::to_string(seed);
    const auto reset = env->reset(seed);
    const Values want_reset = recorded_values(ep["reset_obs"], obs_dtype);
    if (reset.obs != want_reset)
      return where + " reset obs " + values_text(reset.obs) + " != " + values_text(want_reset);
    if (auto d = info_diff(ep["reset_info"], reset.info); !d.empty()) return where + " reset " + d;
    size_t t = 0;
    for (const auto& st : ep["steps"]) {
      const std::string at = where + " step " + std::to_string(t++);
      const auto r = env->step(recorded_values(st["action"], act_dtype));
      const Values want = recorded_values(st["obs"], obs_dtype);
      if (r.obs != want) return at + " obs " + values_text(r.obs) + " != " + values_text(want);
      if (r.reward != st["reward"].get<double>())
        return at + " reward " + std::to_string(r.reward) + " != " + st["reward"].dump();
      if (r.terminated != st["terminated"].get<bool>()) return at + " terminated differs";
      if (r.truncated != st["truncated"].get<bool>()) return at + " truncated differs";
      if (auto d = info_diff(st["info"], r.info); !d.empty()) return at + " " + d;
    }
  }
  return "";
}

// Checks reset_obs of every entry of a reset-seeds-<env>.json table.
inline std::string check_reset_table(const nlohmann::json& table) {
  const std::string id = table["env_id"];
  auto env = make(id, table["kwargs"]);
  const std::string dtype = env->observation_space().dtype;
  for (const auto& e : table["entries"]) {
    const uint64_t seed = e["seed"];
    const Values got = env->reset(seed).obs;
    const Values want = recorded_values(e["reset_obs"], dtype);
    if (got != want)
      return id + " seed " + std::to_string(seed) + " reset obs " + values_text(got) +
             " != " + values_text(want);
  }
  return "";
}

}  // namespace meadow::test
