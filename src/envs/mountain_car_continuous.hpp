// MountainCarContinuous-v0 (gymnasium/envs/classic_control/continuous_mountain_car.py, 1.4.0).
#pragma once

#include "envs/np_random.hpp"
#include "meadow/env.hpp"

namespace meadow::envs {

// float64 after reset; Gymnasium stores float32 after every step, and so do we.
struct MountainCarContinuousState {
  double position = 0, velocity = 0;
};

struct MountainCarContinuousOutcome {
  double reward = 0;
  bool terminated = false;
};

MountainCarContinuousOutcome mountain_car_continuous_step(MountainCarContinuousState& s,
                                                          float action, double goal_velocity);

class MountainCarContinuousEnv final : public Env {
 public:
  explicit MountainCarContinuousEnv(double goal_velocity = 0);

  ResetResult reset(std::optional<uint64_t> seed = std::nullopt) override;
  StepResult step(const Values& action) override;
  const Space& observation_space() const override { return obs_space_; }
  const Space& action_space() const override { return action_space_; }
  Scene scene() const override;
  std::string id() const override { return "MountainCarContinuous-v0"; }

  const MountainCarContinuousState& state() const { return state_; }

 private:
  double goal_velocity_;
  MountainCarContinuousState state_;
  EnvRandom rng_;
  Space obs_space_, action_space_;
};

}  // namespace meadow::envs
