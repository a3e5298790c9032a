// The table of registered environments and make(): Gymnasium's ids, time limits and kwargs.
#include <algorithm>

#include "envs/checked_env.hpp"
#include "envs/factories.hpp"
#include "envs/kwargs.hpp"
#include "meadow/error.hpp"
#include "util/json_parse.hpp"
#include "util/printable.hpp"

namespace meadow {
namespace {

using envs::KwargRule;
using Factory = std::unique_ptr<Env> (*)(const Kwargs&);

struct Registration {
  EnvSpec spec;
  std::vector<KwargRule> kwargs;  // accepted besides render_mode and max_episode_steps
  Factory factory;
};

const std::vector<Registration>& registrations() {
  using namespace envs;
  // FrozenLake-v1 and FrozenLake8x8-v1 differ only in defaults and time limit.
  static const std::vector<KwargRule> frozen_lake_kwargs = {{"desc", kArray | kNull},
                                                            {"map_name", kString | kNull},
                                                            {"is_slippery", kBool},
                                                            {"success_rate", kNumber},
                                                            {"reward_schedule", kArray}};
  // One line per env: {id, max_episode_steps, reward_threshold, default kwargs, summary},
  // accepted kwargs, factory. Values as registered in gymnasium/envs/__init__.py (1.4.0).
  static const std::vector<Registration> table = {
      {{"CartPole-v1", 500, 475.0, {}, "balance a pole on a cart"},
       {{"sutton_barto_reward", kBool}},
       make_cartpole},
      {{"MountainCar-v0", 200, -110.0, {}, "drive an underpowered car up a hill"},
       {{"goal_velocity", kNumber}},
       make_mountain_car},
      {{"MountainCarContinuous-v0", 999, 90.0, {}, "mountain car with a continuous force"},
       {{"goal_velocity", kNumber}},
       make_mountain_car_continuous},
      {{"Acrobot-v1", 500, -100.0, {}, "swing a two-link arm above a line"}, {}, make_acrobot},
      {{"Pendulum-v1", 200, std::nullopt, {}, "swing a pendulum up and keep it upright"},
       {{"g", kNumber}},
       make_pendulum},
      {{"FrozenLake-v1",
        100,
        0.70,
        {{"map_name", "4x4"}},
        "cross a frozen lake to the goal, avoiding holes"},
       frozen_lake_kwargs,
       make_frozen_lake},
      {{"FrozenLake8x8-v1",
        200,
        0.85,
        {{"map_name", "8x8"}},
        "cross a frozen 8x8 lake to the goal, avoiding holes"},
       frozen_lake_kwargs,
       make_frozen_lake},
      {{"CliffWalking-v1", std::nullopt, std::nullopt, {}, "walk along a cliff edge to the goal"},
       {{"is_slippery", kBool}},
       make_cliff_walking},
      {{"Taxi-v4", 200, 8.0, {}, "pick up a passenger and drop them at their destination"},
       {{"is_rainy", kBool}, {"fickle_passenger", kBool}},
       make_taxi},
      {{"LunarLander-v3", 1000, 200.0, {}, "land a craft on the pad between the flags"},
       {{"continuous", kBool},
        {"gravity", kNumber},
        {"enable_wind", kBool},
        {"wind_power", kNumber},
        {"turbulence_power", kNumber}},
       make_lunar_lander},
      {{"FunnelMaze-v0",
        200,
        std::nullopt,
        {},
        "leave a funnel room by its one exit (meadow's own)"},
       {{"layout", kArray | kNull}},
       make_maze},
      // Real-time games: the episode ends by itself (after the last wall / round); no
      // TimeLimit. step() moves the game clock by a fixed dt (simulated time).
      {{"Parkour-v0",
        std::nullopt,
        std::nullopt,
        {},
        "dodge walls coming down three lanes, each faster (meadow's own, real-time)"},
       {{"obstacles", kInt},
        {"speed", kNumber},
        {"speedup", kNumber},
        {"distance", kNumber},
        {"dt", kNumber}},
       make_parkour},
      {{"Shapes-v0",
        std::nullopt,
        std::nullopt,
        {},
        "press the key of the coloured shape before its shrinking window closes (meadow's own, "
        "real-time)"},
       {{"rounds", kInt},
        {"window", kNumber},
        {"shrink", kNumber},
        {"gap", kNumber},
        {"dt", kNumber}},
       make_shapes},
  };
  return table;
}

std::string type_names(unsigned types) {
  std::string s;
  auto add = [&](unsigned bit, const char* name) {
    if (types & bit) s += (s.empty() ? "" : " or ") + std::string(name);
  };
  add(envs::kBool, "a bool");
  add(envs::kInt, "an integer");
  add(envs::kNumber, "a number");
  add(envs::kString, "a string");
  add(envs::kArray, "a list");
  add(envs::kNull, "null");
  return s;
}

bool has_type(const nlohmann::json& v, unsigned types) {
  using namespace envs;
  if (v.is_boolean()) return types & kBool;
  if (v.is_number_integer()) return types & (kInt | kNumber);
  if (v.is_number()) return types & kNumber;
  if (v.is_string()) return types & kString;
  if (v.is_array()) return types & kArray;
  if (v.is_null()) return types & kNull;
  return false;
}

const Registration& find_registration(std::string_view id) {
  for (const auto& r : registrations())
    if (r.spec.id == id) return r;
  std::string known;
  for (const auto& r : registrations()) known += (known.empty() ? "" : ", ") + r.spec.id;
  throw Error("unknown env id " + util::quoted(id) + "; known ids: " + known);
}

}  // namespace

const std::vector<EnvSpec>& env_registry() {
  static const std::vector<EnvSpec> specs = [] {
    std::vector<EnvSpec> out;
    for (const auto& r : registrations()) out.push_back(r.spec);
    return out;
  }();
  return specs;
}

std::unique_ptr<Env> make(std::string_view id, const Kwargs& kwargs) {
  const Registration& reg = find_registration(id);
  if (!kwargs.is_null() && !kwargs.is_object())
    throw Error(reg.spec.id + ": kwargs must be a JSON object");
  // Copying or comparing a json value recurses: kwargs nested deeper than any env reads (a
  // FrozenLake desc is two levels) are refused before anything copies them.
  if (util::json_depth(kwargs) > util::kMaxJsonDepth)
    throw Error(reg.spec.id + ": kwargs nested deeper than " + std::to_string(util::kMaxJsonDepth) +
                " levels");
  Kwargs merged = reg.spec.default_kwargs.is_object() ? reg.spec.default_kwargs : Kwargs::object();
  std::optional<int> max_steps = reg.spec.max_episode_steps;
  if (kwargs.is_object()) {
    for (const auto& [key, value] : kwargs.items()) {
      if (key == "render_mode") {
        // Every env can be drawn at any time through scene(); no window ("human") here.
        if (!value.is_null() && value != "rgb_array")
          throw Error(reg.spec.id + ": render_mode must be null or \"rgb_array\", got " +
                      util::json_excerpt(value));
        continue;
      }
      if (key == "max_episode_steps") {
        if (value.is_null()) {
          max_steps.reset();
        } else if (value.is_number_integer() && value.get<int64_t>() > 0 &&
                   value.get<int64_t>() <= INT32_MAX) {
          max_steps = value.get<int>();
        } else {
          throw Error(reg.spec.id + ": max_episode_steps must be a positive integer or null, got " +
                      util::json_excerpt(value));
        }
        continue;
      }
      const std::string& name = key;  // clang 14 cannot capture a structured binding
      auto rule = std::find_if(reg.kwargs.begin(), reg.kwargs.end(),
                               [&](const KwargRule& r) { return r.name == name; });
      if (rule == reg.kwargs.end()) {
        std::string accepted = "render_mode, max_episode_steps";
        for (const auto& r : reg.kwargs) accepted += ", " + r.name;
        throw Error(reg.spec.id + ": unknown kwarg " + util::quoted(key) +
                    "; accepted: " + accepted);
      }
      if (!has_type(value, rule->types))
        throw Error(reg.spec.id + ": kwarg '" + key + "' must be " + type_names(rule->types) +
                    ", got " + util::json_excerpt(value));
      merged[key] = value;
    }
  }
  return std::make_unique<envs::CheckedEnv>(reg.factory(merged), max_steps);
}

}  // namespace meadow
