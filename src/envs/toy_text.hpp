// What the toy-text envs (FrozenLake, CliffWalking, Taxi) share: Gymnasium's transition
// table P[s][a] = [(prob, next_state, reward, terminated), ...] and its one-draw sampling.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "envs/np_random.hpp"
#include "meadow/env.hpp"

namespace meadow::envs {

struct Transition {
  double prob = 1.0;
  int64_t next_state = 0;
  double reward = 0;
  bool terminated = false;
};

class TransitionTable {
 public:
  TransitionTable(int64_t n_states, int64_t n_actions)
      : n_actions_(n_actions), cells_(static_cast<size_t>(n_states * n_actions)) {}
  std::vector<Transition>& at(int64_t s, int64_t a) { return cells_[cell(s, a)]; }
  const std::vector<Transition>& at(int64_t s, int64_t a) const { return cells_[cell(s, a)]; }

  // Gymnasium's step: categorical_sample over the listed probabilities (exactly one
  // random() per call, whatever the number of outcomes).
  const Transition& sample(int64_t s, int64_t a, NpRandom& rng) const;

 private:
  size_t cell(int64_t s, int64_t a) const { return static_cast<size_t>(s * n_actions_ + a); }
  int64_t n_actions_;
  std::vector<std::vector<Transition>> cells_;
};

// The index held by a Discrete action, or meadow::Error naming the env and the bad value.
int64_t discrete_action(const Values& action, const Space& space, std::string_view env_id);

}  // namespace meadow::envs
