// What gymnasium.make wraps around every env: OrderEnforcing (no step before reset), an
// action check against action_space, and TimeLimit truncation at max_episode_steps.
#pragma once

#include <memory>
#include <optional>

#include "meadow/env.hpp"

namespace meadow::envs {

class CheckedEnv final : public Env {
 public:
  CheckedEnv(std::unique_ptr<Env> inner, std::optional<int> max_episode_steps);

  ResetResult reset(std::optional<uint64_t> seed = std::nullopt) override;
  StepResult step(const Values& action) override;
  const Space& observation_space() const override { return inner_->observation_space(); }
  const Space& action_space() const override { return inner_->action_space(); }
  Scene scene() const override { return inner_->scene(); }
  std::string id() const override { return inner_->id(); }

  int elapsed_steps() const { return elapsed_steps_; }
  Env& inner() { return *inner_; }

 private:
  std::unique_ptr<Env> inner_;
  std::optional<int> max_episode_steps_;
  int elapsed_steps_ = 0;
  bool has_reset_ = false;
};

}  // namespace meadow::envs
