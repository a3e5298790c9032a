// MountainCar-v0 (gymnasium/envs/classic_control/mountain_car.py, Gymnasium 1.4.0).
#pragma once

#include <array>

#include "envs/np_random.hpp"
#include "meadow/env.hpp"

namespace meadow::envs {

struct MountainCarState {
  double position = 0, velocity = 0;  // float64, as Gymnasium keeps them
};

// One step for action 0 (push left), 1 (none) or 2 (push right). Returns terminated.
bool mountain_car_step(MountainCarState& s, int action, double goal_velocity);

class MountainCarEnv final : public Env {
 public:
  explicit MountainCarEnv(double goal_velocity = 0);

  ResetResult reset(std::optional<uint64_t> seed = std::nullopt) override;
  StepResult step(const Values& action) override;
  const Space& observation_space() const override { return obs_space_; }
  const Space& action_space() const override { return action_space_; }
  Scene scene() const override;
  std::string id() const override { return "MountainCar-v0"; }

  const MountainCarState& state() const { return state_; }

 private:
  double goal_velocity_;
  MountainCarState state_;
  EnvRandom rng_;
  Space obs_space_, action_space_;
};

}  // namespace meadow::envs
