// Acrobot-v1 (gymnasium/envs/classic_control/acrobot.py, Gymnasium 1.4.0, "book" dynamics).
#pragma once

#include <array>

#include "envs/np_random.hpp"
#include "meadow/env.hpp"

namespace meadow::envs {

// [theta1, theta2, dtheta1, dtheta2]. Gymnasium keeps it float32 after reset and float64
// from the first step on; `is_f32` records which, because the observation's cos/sin differ.
struct AcrobotState {
  std::array<double, 4> s{};
  bool is_f32 = true;
};

// One RK4 step of 0.2 s with torque -1, 0 or +1 (action 0, 1, 2). Returns terminated.
bool acrobot_step(AcrobotState& st, int action);
std::array<float, 6> acrobot_obs(const AcrobotState& st);

class AcrobotEnv final : public Env {
 public:
  AcrobotEnv();

  ResetResult reset(std::optional<uint64_t> seed = std::nullopt) override;
  StepResult step(const Values& action) override;
  const Space& observation_space() const override { return obs_space_; }
  const Space& action_space() const override { return action_space_; }
  Scene scene() const override;
  std::string id() const override { return "Acrobot-v1"; }

  const AcrobotState& state() const { return state_; }

 private:
  AcrobotState state_;
  EnvRandom rng_;
  Space obs_space_, action_space_;
};

}  // namespace meadow::envs
