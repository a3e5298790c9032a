// Environments that mirror Gymnasium: same ids, kwargs, spaces, seeds and episodes.
//
//   std::unique_ptr<meadow::Env> env = meadow::make("CartPole-v1");
//   meadow::ResetResult r = env->reset(0);
//   meadow::StepResult s = env->step({1});   // until s.terminated || s.truncated
//
// An env of one's own derives from Env (and draws itself as a Scene, meadow/scene.hpp); a task
// names a registered env by id (Task::env_id).
//
// Stability: everything here is stable (kept across releases; fields may be added) unless
// marked "Experimental:", which may change or go.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "meadow/scene.hpp"
#include "meadow/values.hpp"

namespace meadow {

// Observations and actions are Values (meadow/values.hpp), Box components already rounded to
// the space's dtype (float32 observations hold exactly the float32 value Gymnasium returns).

// An observation or action space, as Gymnasium's spaces.Discrete and spaces.Box.
struct Space {
  enum class Kind { Discrete, Box };
  Kind kind = Kind::Discrete;
  int64_t n = 0;                  // Discrete: number of values
  int64_t start = 0;              // Discrete: first value
  std::vector<double> low, high;  // Box bounds, one per component (flattened)
  std::vector<int64_t> shape;     // Box shape
  std::string dtype = "int64";    // "int64", "float32", "float64"

  bool contains(const Values& v) const;  // v is in the space (size, bounds, integrality)
  std::string describe() const;          // "Discrete(2)", "Box([-1.], [1.], (1,), float32)"
};

// Gymnasium's info dict: scalars are one-element lists.
using Info = std::map<std::string, std::vector<double>>;

// What reset() returns: the first observation and Gymnasium's info.
struct ResetResult {
  Values obs;  // in observation_space()
  Info info;   // as Gymnasium's reset() info
};

// What step() returns, as Gymnasium's step().
struct StepResult {
  Values obs;               // the observation after the action
  double reward = 0;        // the reward of this step
  bool terminated = false;  // the env reached a terminal state (the episode is over)
  bool truncated = false;   // the episode was cut short (its TimeLimit)
  Info info;                // as Gymnasium's step() info
};

// Keyword arguments as Gymnasium takes them, e.g. {{"map_name","8x8"},{"is_slippery",false}}.
using Kwargs = nlohmann::json;

// An environment: reset, step, spaces and its picture. Envs from make() also check the order of
// calls (a step before reset throws) and apply the registered TimeLimit.
class Env {
 public:
  virtual ~Env() = default;
  // seed = nullopt keeps the current RNG stream (or seeds from entropy on first use).
  virtual ResetResult reset(std::optional<uint64_t> seed = std::nullopt) = 0;
  // Throws meadow::Error for an action outside action_space() or a step before reset().
  virtual StepResult step(const Values& action) = 0;
  virtual const Space& observation_space() const = 0;
  virtual const Space& action_space() const = 0;
  // What the current state looks like, at Gymnasium's render size.
  virtual Scene scene() const = 0;
  virtual std::string id() const = 0;  // the registered id, "CartPole-v1"
};

// A registered env, as Gymnasium's EnvSpec.
struct EnvSpec {
  std::string id;                            // "CartPole-v1"
  std::optional<int> max_episode_steps;      // TimeLimit applied by make()
  std::optional<double> reward_threshold;    // Gymnasium's "solved" level, where it has one
  Kwargs default_kwargs = Kwargs::object();  // the kwargs make() fills in
  std::string summary;                       // one line for `meadow-mind env list`
};

// Every env make() knows, in listing order.
const std::vector<EnvSpec>& env_registry();

// A registered env's documentation in Gymnasium's sections (description, action space,
// observation space, rewards, starting state, episode end, arguments); "" for an unknown id.
// `meadow-mind env doc ID` prints it; Python's help() on an env shows it.
std::string_view env_doc(std::string_view id);

// Builds a registered env with its TimeLimit and order checks. Unknown ids, unknown kwargs
// and kwargs of the wrong type throw meadow::Error naming the problem.
std::unique_ptr<Env> make(std::string_view id, const Kwargs& kwargs = Kwargs::object());

}  // namespace meadow
