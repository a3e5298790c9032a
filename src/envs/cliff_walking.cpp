#include "envs/cliff_walking.hpp"

#include <algorithm>
#include <array>
#include <vector>

#include "envs/kwargs.hpp"
#include "envs/scene_util.hpp"
#include "meadow/error.hpp"

namespace meadow::envs {
namespace {

// Actions UP, RIGHT, DOWN, LEFT as (row, col) deltas.
constexpr std::array<std::array<int, 2>, 4> kMoves{{{-1, 0}, {0, 1}, {1, 0}, {0, -1}}};

bool is_cliff(int row, int col) {
  return row == CliffWalking::kRows - 1 && col >= 1 && col <= CliffWalking::kCols - 2;
}

}  // namespace

CliffWalking::CliffWalking(bool is_slippery) : table_(kRows * kCols, 4) {
  obs_space_ = discrete_space(kRows * kCols);
  act_space_ = discrete_space(4);
  for (int64_t s = 0; s < kRows * kCols; ++s) {
    const int row = static_cast<int>(s / kCols), col = static_cast<int>(s % kCols);
    for (int a = 0; a < 4; ++a) {
      std::vector<int> moves =
          is_slippery ? std::vector<int>{(a + 3) % 4, a, (a + 1) % 4} : std::vector<int>{a};
      // Gymnasium writes the probability as 1 / len(deltas).
      const double prob = 1.0 / static_cast<double>(moves.size());
      for (int m : moves) {
        const int r = std::clamp(row + kMoves[m][0], 0, kRows - 1);
        const int c = std::clamp(col + kMoves[m][1], 0, kCols - 1);
        if (is_cliff(r, c)) {
          table_.at(s, a).push_back({prob, kStart, -100, false});
        } else {
          const int64_t next = r * kCols + c;
          table_.at(s, a).push_back({prob, next, -1, next == kGoal});
        }
      }
    }
  }
}

ResetResult CliffWalking::reset(std::optional<uint64_t> seed) {
  rng_.reset(seed);
  // Gymnasium samples a one-hot start distribution: one random() draw, always state 36.
  std::vector<double> initial(kRows * kCols, 0.0);
  initial[kStart] = 1.0;
  s_ = categorical_sample(initial, rng_.get());
  last_action_.reset();
  return {{static_cast<double>(*s_)}, {{"prob", {1.0}}}};
}

StepResult CliffWalking::step(const Values& action) {
  const int64_t a = discrete_action(action, act_space_, id());
  if (!s_) throw Error("CliffWalking-v1: step() called before reset()");
  const Transition& t = table_.sample(*s_, a, rng_.get());
  s_ = t.next_state;
  last_action_ = a;
  return {{static_cast<double>(t.next_state)}, t.reward, t.terminated, false, {{"prob", {t.prob}}}};
}

Scene CliffWalking::scene() const {
  return cliff_walking_scene(s_.value_or(kStart), last_action_);
}

std::unique_ptr<Env> make_cliff_walking(const Kwargs& kwargs) {
  return std::make_unique<CliffWalking>(kwarg_or(kwargs, "is_slippery", false));
}

}  // namespace meadow::envs
