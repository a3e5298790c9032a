// Parkour-v0: a runner in three lanes; walls approach one after another, each leaving one
// lane free, each faster than the last. Meadow's own real-time game (not Gymnasium's), with
// the Gymnasium API and the TimedEnv clock (envs/timed_env.hpp).
//
// Actions (Discrete(3)): 0 stay, 1 move one lane left, 2 move one lane right (instant; a move
// into the side of the track does nothing). A wall reaches the runner `distance / speed`
// seconds after it appears; if the runner is then in a blocked lane it crashes (reward 0),
// otherwise the wall is cleared (reward +1). Either way the next wall appears at once; the
// episode terminates after the last wall. The free lanes come from a seeded sequence (numpy's
// PCG64 through np_random), each different from the one before, so standing still never
// clears two walls in a row.
//
// Observation (Box, float32): {runner lane (0 left .. 2 right), the wall's distance (m), its
// speed (m/s), left blocked, middle blocked, right blocked (0/1), walls left (this one included)}.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "envs/np_random.hpp"
#include "envs/timed_env.hpp"

namespace meadow::envs {

struct ParkourConfig {
  int obstacles = 6;
  double speed = 8.0;    // first wall, m/s
  double speedup = 1.5;  // each wall this much faster: the last of six hits 0.33 s after it appears
  double distance = 20.0;  // where a wall appears, m ahead of the runner
  double dt = 0.05;        // game seconds per step() in simulated time
};

class Parkour final : public TimedEnv {
 public:
  static constexpr int kLanes = 3;
  explicit Parkour(ParkourConfig config);

  ResetResult reset(std::optional<uint64_t> seed = std::nullopt) override;
  StepResult step(const Values& action) override;
  const Space& observation_space() const override { return obs_space_; }
  const Space& action_space() const override { return act_space_; }
  Scene scene() const override;
  std::string id() const override { return "Parkour-v0"; }

  double clock() const override { return clock_; }
  StepResult advance(double seconds) override;
  StepResult act(const Values& action) override;
  int64_t challenge() const override;
  Values observe() const override;
  double dt() const override { return cfg_.dt; }

  int lane() const { return lane_; }
  int wall() const { return k_; }  // index of the approaching wall (== obstacles when done)
  double wall_speed(int k) const;
  double wall_distance() const;  // of the approaching wall, m
  const std::vector<int>& free_lanes() const { return free_; }
  int cleared() const { return cleared_; }
  int crashes() const { return crashes_; }

 private:
  void require_reset() const;
  ParkourConfig cfg_;
  Space obs_space_, act_space_;
  std::optional<NpRandom> rng_;
  std::vector<int> free_;  // the free lane of each wall
  bool started_ = false;
  double clock_ = 0, spawned_at_ = 0;
  int lane_ = 1, k_ = 0, cleared_ = 0, crashes_ = 0;
  int last_lane_hit_ = -1;  // lane of the last crash, for the picture
  double last_result_at_ = -1;
  bool last_crashed_ = false;
};

// kwargs: obstacles (1..100), speed (> 0), speedup (>= 1), distance (> 0), dt (> 0).
std::unique_ptr<Env> make_parkour(const Kwargs& kwargs);

}  // namespace meadow::envs
