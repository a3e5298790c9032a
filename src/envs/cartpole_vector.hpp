// N CartPoles stepped together, after Gymnasium's CartPoleVectorEnv (next-step autoreset:
// an env that ended on the previous step is reset instead of stepped, with reward 0).
// Same per-copy dynamics as CartPoleEnv; one shared RNG, drawing reset states in NumPy's
// (4, n) C order. Allocation-free after construction.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "envs/cartpole.hpp"
#include "envs/np_random.hpp"

namespace meadow::envs {

class CartPoleVector {
 public:
  explicit CartPoleVector(int num_envs, int max_episode_steps = 500,
                          bool sutton_barto_reward = false);

  int size() const { return static_cast<int>(states_.size()); }
  void reset(std::optional<uint64_t> seed = std::nullopt);
  // actions: one 0/1 per env. Results are read through the accessors below.
  void step(std::span<const int> actions);

  const std::vector<CartPoleState>& states() const { return states_; }
  std::span<const float> obs() const { return obs_; }  // n x 4, row per env
  std::span<const float> rewards() const { return rewards_; }
  const std::vector<uint8_t>& terminated() const { return terminated_; }
  const std::vector<uint8_t>& truncated() const { return truncated_; }

 private:
  void write_obs();

  int max_episode_steps_;
  bool sutton_barto_reward_;
  std::vector<CartPoleState> states_;
  std::vector<int> steps_;
  std::vector<uint8_t> prev_done_, terminated_, truncated_;
  std::vector<float> obs_, rewards_;
  std::vector<int> to_reset_;
  EnvRandom rng_;
};

}  // namespace meadow::envs
