#include "envs/cartpole_vector.hpp"

#include "meadow/error.hpp"

namespace meadow::envs {

CartPoleVector::CartPoleVector(int num_envs, int max_episode_steps, bool sutton_barto_reward)
    : max_episode_steps_(max_episode_steps), sutton_barto_reward_(sutton_barto_reward) {
  if (num_envs < 1) throw Error("CartPoleVector: num_envs must be at least 1");
  const auto n = static_cast<size_t>(num_envs);
  states_.resize(n);
  steps_.assign(n, 0);
  prev_done_.assign(n, 0);
  terminated_.assign(n, 0);
  truncated_.assign(n, 0);
  obs_.assign(4 * n, 0.f);
  rewards_.assign(n, 0.f);
  to_reset_.reserve(n);
}

void CartPoleVector::reset(std::optional<uint64_t> seed) {
  rng_.reset(seed);
  NpRandom& rng = rng_.get();
  // uniform(-0.05, 0.05, size=(4, n)): all x first, then all x_dot, ...
  for (auto field :
       {&CartPoleState::x, &CartPoleState::x_dot, &CartPoleState::theta, &CartPoleState::theta_dot})
    for (auto& s : states_) s.*field = rng.uniform(-0.05, 0.05);
  for (size_t i = 0; i < states_.size(); ++i) {
    steps_[i] = 0;
    prev_done_[i] = terminated_[i] = truncated_[i] = 0;
    rewards_[i] = 0;
  }
  write_obs();
}

void CartPoleVector::step(std::span<const int> actions) {
  if (actions.size() != states_.size()) throw Error("CartPoleVector: expected one action per env");
  to_reset_.clear();
  for (size_t i = 0; i < states_.size(); ++i) {
    if (prev_done_[i]) {
      to_reset_.push_back(static_cast<int>(i));  // capacity reserved: no allocation
      continue;
    }
    states_[i] = cartpole_dynamics(states_[i], actions[i]);
    const bool term = cartpole_failed(states_[i]);
    terminated_[i] = term;
    truncated_[i] = ++steps_[i] >= max_episode_steps_;
    rewards_[i] = sutton_barto_reward_ ? (term ? -1.f : 0.f) : 1.f;
  }
  if (!to_reset_.empty()) {
    NpRandom& rng = rng_.get();
    for (auto field : {&CartPoleState::x, &CartPoleState::x_dot, &CartPoleState::theta,
                       &CartPoleState::theta_dot})
      for (int i : to_reset_) states_[i].*field = rng.uniform(-0.05, 0.05);
    for (int i : to_reset_) {
      steps_[i] = 0;
      rewards_[i] = 0;
      terminated_[i] = truncated_[i] = 0;
    }
  }
  for (size_t i = 0; i < states_.size(); ++i) prev_done_[i] = terminated_[i] || truncated_[i];
  write_obs();
}

void CartPoleVector::write_obs() {
  for (size_t i = 0; i < states_.size(); ++i) {
    const auto o = cartpole_obs(states_[i]);
    for (int k = 0; k < 4; ++k) obs_[4 * i + k] = o[k];
  }
}

}  // namespace meadow::envs
