// CartPole-v1 (gymnasium/envs/classic_control/cartpole.py, Gymnasium 1.4.0).
#pragma once

#include <array>

#include "envs/np_random.hpp"
#include "meadow/env.hpp"

namespace meadow::envs {

struct CartPoleState {
  double x = 0, x_dot = 0, theta = 0, theta_dot = 0;
};

struct CartPoleOutcome {
  double reward = 0;
  bool terminated = false;
};

// Gymnasium's euler step for action 0 (push left) or 1 (push right). Pure, allocation-free.
CartPoleState cartpole_dynamics(const CartPoleState& s, int action);
bool cartpole_failed(const CartPoleState& s);
std::array<float, 4> cartpole_obs(const CartPoleState& s);

class CartPoleEnv final : public Env {
 public:
  explicit CartPoleEnv(bool sutton_barto_reward = false);

  ResetResult reset(std::optional<uint64_t> seed = std::nullopt) override;
  StepResult step(const Values& action) override;
  const Space& observation_space() const override { return obs_space_; }
  const Space& action_space() const override { return action_space_; }
  Scene scene() const override;
  std::string id() const override { return "CartPole-v1"; }

  // The hot path: no allocation, no virtual call. Action must be 0 or 1.
  CartPoleOutcome step_state(int action);
  void reset_state(std::optional<uint64_t> seed = std::nullopt);
  const CartPoleState& state() const { return state_; }
  void set_state(const CartPoleState& s) { state_ = s; }

 private:
  bool sutton_barto_reward_;
  CartPoleState state_;
  int steps_beyond_terminated_ = -1;  // -1: Gymnasium's None
  EnvRandom rng_;
  Space obs_space_, action_space_;
};

}  // namespace meadow::envs
