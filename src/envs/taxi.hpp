// Taxi-v4 (Gymnasium 1.4.0): pick the passenger up at one of R/G/Y/B and drop them at their
// destination on a 5 x 5 grid with walls. state = ((row * 5 + col) * 5 + passenger) * 4 + dest.
// is_rainy: moves go sideways with probability 0.1 each; fickle_passenger: with probability
// 0.3 per episode the passenger changes destination after the first move with them aboard.
#pragma once

#include <array>
#include <memory>
#include <optional>

#include "envs/np_random.hpp"
#include "envs/toy_text.hpp"
#include "meadow/env.hpp"

namespace meadow::envs {

struct TaxiState {
  int row = 0, col = 0, passenger = 0, destination = 0;  // passenger 4 = in the taxi
};
TaxiState taxi_decode(int64_t s);
int64_t taxi_encode(const TaxiState& t);

class Taxi final : public Env {
 public:
  Taxi(bool is_rainy = false, bool fickle_passenger = false);
  ResetResult reset(std::optional<uint64_t> seed = std::nullopt) override;
  StepResult step(const Values& action) override;
  const Space& observation_space() const override { return obs_space_; }
  const Space& action_space() const override { return act_space_; }
  Scene scene() const override;
  std::string id() const override { return "Taxi-v4"; }

  // Gymnasium's info["action_mask"]: 1 for the actions that can change the state.
  static std::array<int, 6> action_mask(int64_t s);

 private:
  TransitionTable table_;
  std::vector<double> initial_distribution_;
  bool fickle_passenger_;
  bool fickle_step_ = false;
  Space obs_space_, act_space_;
  EnvRandom rng_;
  std::optional<int64_t> s_;
  std::optional<int64_t> last_action_;
  int taxi_orientation_ = 0;  // the last move action, for the picture
};

std::unique_ptr<Env> make_taxi(const Kwargs& kwargs);

// 550 x 350 like Gymnasium's render: the 7 x 11 character map as 50-px cells.
Scene taxi_scene(int64_t state, int taxi_orientation);

}  // namespace meadow::envs
