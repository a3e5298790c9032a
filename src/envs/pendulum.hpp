// Pendulum-v1 (gymnasium/envs/classic_control/pendulum.py, Gymnasium 1.4.0).
#pragma once

#include <optional>

#include "envs/np_random.hpp"
#include "meadow/env.hpp"

namespace meadow::envs {

struct PendulumState {
  double th = 0, thdot = 0;  // angle (0 = upright) and angular velocity, float64
};

// Gymnasium's angle_normalize: ((x + pi) % (2 pi)) - pi with Python's floor-mod.
double pendulum_angle_normalize(double x);
// One step with torque u (float32, already clipped to [-2, 2]); returns the reward (-cost).
double pendulum_step(PendulumState& s, float u, double g);

class PendulumEnv final : public Env {
 public:
  explicit PendulumEnv(double g = 10.0);

  ResetResult reset(std::optional<uint64_t> seed = std::nullopt) override;
  StepResult step(const Values& action) override;
  const Space& observation_space() const override { return obs_space_; }
  const Space& action_space() const override { return action_space_; }
  Scene scene() const override;
  std::string id() const override { return "Pendulum-v1"; }

  const PendulumState& state() const { return state_; }

 private:
  double g_;
  PendulumState state_;
  std::optional<float> last_u_;  // drawn as the torque arrow
  EnvRandom rng_;
  Space obs_space_, action_space_;
};

}  // namespace meadow::envs
