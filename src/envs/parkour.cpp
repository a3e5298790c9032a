#include "envs/parkour.hpp"

#include <cmath>
#include <cstdio>

#include "envs/kwargs.hpp"
#include "envs/scene_shapes.hpp"
#include "envs/scene_util.hpp"
#include "envs/toy_text.hpp"
#include "meadow/error.hpp"

namespace meadow::envs {

Parkour::Parkour(ParkourConfig config) : cfg_(config) {
  if (cfg_.obstacles < 1 || cfg_.obstacles > 100)
    throw Error("Parkour-v0: obstacles must be in 1..100, got " + std::to_string(cfg_.obstacles));
  if (!(cfg_.speed > 0) || !std::isfinite(cfg_.speed))
    throw Error("Parkour-v0: speed must be a positive number");
  if (!(cfg_.speedup >= 1) || !std::isfinite(cfg_.speedup))
    throw Error("Parkour-v0: speedup must be a number >= 1");
  if (!(cfg_.distance > 0) || !std::isfinite(cfg_.distance))
    throw Error("Parkour-v0: distance must be a positive number");
  if (!(cfg_.dt > 0) || !std::isfinite(cfg_.dt))
    throw Error("Parkour-v0: dt must be a positive number");
  const double top_speed = wall_speed(cfg_.obstacles - 1);
  if (!std::isfinite(top_speed)) throw Error("Parkour-v0: speedup overflows the last wall's speed");
  obs_space_ = box_space({0, 0, 0, 0, 0, 0, 0},
                         {2, cfg_.distance, top_speed, 1, 1, 1, double(cfg_.obstacles)});
  act_space_ = discrete_space(3);
}

double Parkour::wall_speed(int k) const {
  return cfg_.speed * std::pow(cfg_.speedup, k);
}

double Parkour::wall_distance() const {
  if (k_ >= cfg_.obstacles) return 0;
  // A function of the time since the wall appeared, never accumulated step by step: the same
  // instant gives the same distance whatever the sizes of the steps that led there.
  return std::max(0.0, cfg_.distance - wall_speed(k_) * (clock_ - spawned_at_));
}

void Parkour::require_reset() const {
  if (!started_) throw Error("Parkour-v0: step() called before reset()");
}

ResetResult Parkour::reset(std::optional<uint64_t> seed) {
  if (seed)
    rng_.emplace(*seed);
  else if (!rng_)
    rng_.emplace(NpRandom::from_entropy());
  free_.clear();
  int prev = 1;  // the runner starts in the middle lane: the first wall blocks it
  for (int k = 0; k < cfg_.obstacles; ++k) {
    // One of the two lanes other than the previous free one.
    const int pick = int(rng_->integers(0, 2));
    const int lane = pick < prev ? pick : pick + 1;
    free_.push_back(lane);
    prev = lane;
  }
  started_ = true;
  clock_ = spawned_at_ = 0;
  lane_ = 1, k_ = 0, cleared_ = 0, crashes_ = 0;
  last_lane_hit_ = -1, last_result_at_ = -1, last_crashed_ = false;
  return {observe(), {}};
}

Values Parkour::observe() const {
  if (k_ >= cfg_.obstacles) return {double(lane_), 0, 0, 0, 0, 0, 0};
  const int f = free_[size_t(k_)];
  return {double(lane_),
          double(float(wall_distance())),
          double(float(wall_speed(k_))),
          f == 0 ? 0.0 : 1.0,
          f == 1 ? 0.0 : 1.0,
          f == 2 ? 0.0 : 1.0,
          double(cfg_.obstacles - k_)};
}

int64_t Parkour::challenge() const {
  return k_ >= cfg_.obstacles ? -1 : k_;
}

StepResult Parkour::advance(double seconds) {
  require_reset();
  if (!(seconds >= 0) || !std::isfinite(seconds))
    throw Error("Parkour-v0: advance() needs a finite time >= 0");
  StepResult out;
  while (k_ < cfg_.obstacles) {
    const double impact_at = spawned_at_ + cfg_.distance / wall_speed(k_);
    if (clock_ + seconds < impact_at) {
      clock_ += seconds;
      break;
    }
    seconds -= impact_at - clock_;
    clock_ = impact_at;
    last_crashed_ = lane_ != free_[size_t(k_)];
    last_result_at_ = clock_;
    if (last_crashed_) {
      ++crashes_;
      last_lane_hit_ = lane_;
    } else {
      ++cleared_;
      out.reward += 1;
    }
    ++k_;
    spawned_at_ = clock_;
  }
  out.terminated = k_ >= cfg_.obstacles;
  out.obs = observe();
  return out;
}

StepResult Parkour::act(const Values& action) {
  const int64_t a = discrete_action(action, act_space_, id());
  require_reset();
  if (k_ < cfg_.obstacles) {
    if (a == 1 && lane_ > 0) --lane_;
    if (a == 2 && lane_ < kLanes - 1) ++lane_;
  }
  StepResult out;
  out.terminated = k_ >= cfg_.obstacles;
  out.obs = observe();
  return out;
}

StepResult Parkour::step(const Values& action) {
  return act_then_advance(*this, action);
}

Scene Parkour::scene() const {
  // Seen from above: the runner near the bottom, walls coming down the three lanes.
  constexpr double kW = 300, kH = 400, kLaneW = kW / kLanes, kRunnerY = 340;
  Scene sc;
  sc.width = int(kW);
  sc.height = int(kH);
  sc.background = {225, 215, 190};
  for (int l = 1; l < kLanes; ++l)
    sc.shapes.push_back(rect_shape(l * kLaneW - 1, 0, 2, kH, {170, 160, 140}));
  if (started_ && k_ < cfg_.obstacles) {
    const double y = kRunnerY - wall_distance() * (kRunnerY - 20) / cfg_.distance;
    for (int l = 0; l < kLanes; ++l)
      if (l != free_[size_t(k_)])
        sc.shapes.push_back(rect_shape(l * kLaneW + 6, y - 14, kLaneW - 12, 16, {90, 60, 50}));
  }
  const bool flash = started_ && last_result_at_ >= 0 && clock_ - last_result_at_ < 0.3;
  const Rgb runner = flash && last_crashed_ ? Rgb{220, 30, 30} : Rgb{40, 110, 220};
  sc.shapes.push_back(circle({(lane_ + 0.5) * kLaneW, kRunnerY + 10}, 14, runner));
  if (flash)
    sc.shapes.push_back(text_shape((lane_ + 0.5) * kLaneW - 24, kRunnerY + 28,
                                   last_crashed_ ? "CRASH" : "clear",
                                   last_crashed_ ? Rgb{200, 20, 20} : Rgb{30, 130, 30}, 14));
  char buf[96];
  const int shown = std::min(k_ + 1, cfg_.obstacles);
  std::snprintf(buf, sizeof buf, "wall %d/%d  %.1f m/s  cleared %d  t=%.2f s", shown,
                cfg_.obstacles, started_ ? wall_speed(std::min(k_, cfg_.obstacles - 1)) : 0.0,
                cleared_, clock_);
  sc.shapes.push_back(text_shape(6, 4, buf, {30, 30, 30}, 12));
  return sc;
}

std::unique_ptr<Env> make_parkour(const Kwargs& kwargs) {
  ParkourConfig c;
  c.obstacles = kwarg_or<int>(kwargs, "obstacles", c.obstacles);
  c.speed = kwarg_or<double>(kwargs, "speed", c.speed);
  c.speedup = kwarg_or<double>(kwargs, "speedup", c.speedup);
  c.distance = kwarg_or<double>(kwargs, "distance", c.distance);
  c.dt = kwarg_or<double>(kwargs, "dt", c.dt);
  return std::make_unique<Parkour>(c);
}

}  // namespace meadow::envs
