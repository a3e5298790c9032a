#include "envs/checked_env.hpp"

#include <charconv>
#include <cmath>

#include "meadow/error.hpp"

namespace meadow::envs {
namespace {

std::string values_text(const Values& v) {
  std::string s = "[";
  char buf[32];
  for (size_t i = 0; i < v.size(); ++i) {
    auto res = std::to_chars(buf, buf + sizeof buf, v[i]);
    s += (i ? ", " : "") + std::string(buf, res.ptr);
  }
  return s + "]";
}

// Discrete actions must be in the space. Box actions need the right size and finite values;
// values outside the bounds are allowed because Gymnasium's Box envs (Pendulum,
// MountainCarContinuous, LunarLander) clip them themselves, and the same actions must give
// the same episode here.
bool acceptable(const Space& space, const Values& action) {
  if (space.kind == Space::Kind::Discrete) return space.contains(action);
  if (action.size() != space.low.size()) return false;
  for (double x : action)
    if (!std::isfinite(x)) return false;
  return true;
}

}  // namespace

CheckedEnv::CheckedEnv(std::unique_ptr<Env> inner, std::optional<int> max_episode_steps)
    : inner_(std::move(inner)), max_episode_steps_(max_episode_steps) {}

ResetResult CheckedEnv::reset(std::optional<uint64_t> seed) {
  auto result = inner_->reset(seed);
  has_reset_ = true;
  elapsed_steps_ = 0;
  return result;
}

StepResult CheckedEnv::step(const Values& action) {
  if (!has_reset_) throw Error(id() + ": cannot call step() before reset()");
  if (!acceptable(action_space(), action))
    throw Error("invalid action " + values_text(action) + " for " + id() + ": expected " +
                action_space().describe());
  auto result = inner_->step(action);
  ++elapsed_steps_;
  if (max_episode_steps_ && elapsed_steps_ >= *max_episode_steps_) result.truncated = true;
  return result;
}

}  // namespace meadow::envs
