// CliffWalking-v1 (Gymnasium 1.4.0): a 4 x 12 grid, start (3, 0), goal (3, 11), a cliff
// along (3, 1..10) that costs -100 and sends the agent back to the start. With is_slippery
// the move goes to either perpendicular direction with probability 1/3 each.
#pragma once

#include <memory>
#include <optional>

#include "envs/np_random.hpp"
#include "envs/toy_text.hpp"
#include "meadow/env.hpp"

namespace meadow::envs {

class CliffWalking final : public Env {
 public:
  explicit CliffWalking(bool is_slippery = false);
  ResetResult reset(std::optional<uint64_t> seed = std::nullopt) override;
  StepResult step(const Values& action) override;
  const Space& observation_space() const override { return obs_space_; }
  const Space& action_space() const override { return act_space_; }
  Scene scene() const override;
  std::string id() const override { return "CliffWalking-v1"; }

  static constexpr int kRows = 4, kCols = 12;
  static constexpr int64_t kStart = 36, kGoal = 47;

 private:
  TransitionTable table_;
  Space obs_space_, act_space_;
  EnvRandom rng_;
  std::optional<int64_t> s_;
  std::optional<int64_t> last_action_;
};

std::unique_ptr<Env> make_cliff_walking(const Kwargs& kwargs);

// 60-px cells, 720 x 240, like Gymnasium's render.
Scene cliff_walking_scene(int64_t state, std::optional<int64_t> last_action);

}  // namespace meadow::envs
