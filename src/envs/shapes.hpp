// Shapes-v0: a coloured shape appears; press its key before the window closes. Each round
// starts with a quiet gap, then the shape shows for the round's window, which shrinks every
// round (window * shrink^round). Meadow's own real-time game, with the Gymnasium API and the
// TimedEnv clock (envs/timed_env.hpp).
//
// Shapes: 0 red square, 1 green square, 2 red circle, 3 green circle (kShapeNames). Actions
// (Discrete(5)): 0..3 press that shape's key, 4 wait. The right key while the shape shows:
// reward +1 and the round ends; a wrong key: the round ends, missed; the window closing
// first: missed. Keys pressed in the gap do nothing. The episode terminates after the last
// round. The shapes come from a seeded sequence (np_random), each different from the last.
//
// Observation (Box, float32): {shape shown (0..3, 4 none), seconds left in the window (0 in the
// gap), round (0-based), this round's window (s)}.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "envs/np_random.hpp"
#include "envs/timed_env.hpp"

namespace meadow::envs {

inline constexpr std::array<const char*, 4> kShapeNames{"red square", "green square", "red circle",
                                                        "green circle"};
inline constexpr std::array<const char*, 4> kShapeKinds{"square", "square", "circle", "circle"};
inline constexpr std::array<const char*, 4> kShapeColours{"red", "green", "red", "green"};
inline constexpr int kShapeNone = 4;  // observation: nothing shown; action: wait

struct ShapesConfig {
  int rounds = 6;
  double window = 1.0;  // first round's window, s
  double shrink = 0.8;  // each window this fraction of the one before
  double gap = 0.25;    // quiet seconds before each shape
  double dt = 0.01;     // game seconds per step() in simulated time
};

class Shapes final : public TimedEnv {
 public:
  explicit Shapes(ShapesConfig config);

  ResetResult reset(std::optional<uint64_t> seed = std::nullopt) override;
  StepResult step(const Values& action) override;
  const Space& observation_space() const override { return obs_space_; }
  const Space& action_space() const override { return act_space_; }
  Scene scene() const override;
  std::string id() const override { return "Shapes-v0"; }

  double clock() const override { return clock_; }
  StepResult advance(double seconds) override;
  StepResult act(const Values& action) override;
  // 2 * round in the gap, 2 * round + 1 while the shape shows, -1 when over.
  int64_t challenge() const override;
  Values observe() const override;
  double dt() const override { return cfg_.dt; }

  double window(int round) const;  // s
  int round() const { return round_; }
  bool showing() const;
  const std::vector<int>& sequence() const { return seq_; }
  int matched() const { return matched_; }

 private:
  void require_reset() const;
  void end_round(bool matched);
  ShapesConfig cfg_;
  Space obs_space_, act_space_;
  std::optional<NpRandom> rng_;
  std::vector<int> seq_;
  bool started_ = false;
  double clock_ = 0, round_start_ = 0;
  int round_ = 0, matched_ = 0;
  int last_result_ = -1;  // -1 none yet, 0 missed, 1 matched (for the picture)
};

// kwargs: rounds (1..100), window (> 0), shrink (0 < shrink <= 1), gap (>= 0), dt (> 0).
std::unique_ptr<Env> make_shapes(const Kwargs& kwargs);

}  // namespace meadow::envs
