// FrozenLake-v1 (Gymnasium 1.4.0): walk from S to G over a grid of ice without falling into
// holes; slippery ice moves perpendicular with probability (1 - success_rate) / 2 each way.
#pragma once

#include <array>
#include <memory>
#include <optional>

#include "envs/frozen_lake_maps.hpp"
#include "envs/np_random.hpp"
#include "envs/toy_text.hpp"
#include "meadow/env.hpp"

namespace meadow::envs {

struct FrozenLakeConfig {
  LakeMap desc = frozen_lake_named_map("4x4");
  bool is_slippery = true;
  double success_rate = 1.0 / 3.0;
  std::array<double, 3> reward_schedule{1, 0, 0};  // reaching G, H, F (S counts as F)
};

class FrozenLake final : public Env {
 public:
  explicit FrozenLake(FrozenLakeConfig config);
  ResetResult reset(std::optional<uint64_t> seed = std::nullopt) override;
  StepResult step(const Values& action) override;
  const Space& observation_space() const override { return obs_space_; }
  const Space& action_space() const override { return act_space_; }
  Scene scene() const override;
  std::string id() const override { return "FrozenLake-v1"; }

  const LakeMap& desc() const { return config_.desc; }

 private:
  FrozenLakeConfig config_;
  int64_t nrow_, ncol_;
  TransitionTable table_;
  std::vector<double> initial_distribution_;
  Space obs_space_, act_space_;
  EnvRandom rng_;
  std::optional<int64_t> s_;  // nullopt until the first reset
  std::optional<int64_t> last_action_;
};

// Builds FrozenLake from Gymnasium's kwargs: desc (list of strings or null), map_name
// ("4x4", "8x8" or null: with desc null too, a random 8x8 map from OS entropy),
// is_slippery, success_rate in [0, 1], reward_schedule [goal, hole, frozen].
std::unique_ptr<Env> make_frozen_lake(const Kwargs& kwargs);

// The picture at Gymnasium's size: 64-px cells, window min(64 * n, 512) per side.
Scene frozen_lake_scene(const LakeMap& desc, int64_t state, std::optional<int64_t> last_action);

}  // namespace meadow::envs
