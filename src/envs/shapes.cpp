#include "envs/shapes.hpp"

#include <cmath>
#include <cstdio>

#include "envs/kwargs.hpp"
#include "envs/scene_shapes.hpp"
#include "envs/scene_util.hpp"
#include "envs/toy_text.hpp"
#include "meadow/error.hpp"

namespace meadow::envs {

Shapes::Shapes(ShapesConfig config) : cfg_(config) {
  if (cfg_.rounds < 1 || cfg_.rounds > 100)
    throw Error("Shapes-v0: rounds must be in 1..100, got " + std::to_string(cfg_.rounds));
  if (!(cfg_.window > 0) || !std::isfinite(cfg_.window))
    throw Error("Shapes-v0: window must be a positive number of seconds");
  if (!(cfg_.shrink > 0 && cfg_.shrink <= 1)) throw Error("Shapes-v0: shrink must be in (0, 1]");
  if (!(cfg_.gap >= 0) || !std::isfinite(cfg_.gap))
    throw Error("Shapes-v0: gap must be a number of seconds >= 0");
  if (!(cfg_.dt > 0) || !std::isfinite(cfg_.dt))
    throw Error("Shapes-v0: dt must be a positive number");
  obs_space_ = box_space({0, 0, 0, 0}, {4, cfg_.window, double(cfg_.rounds), cfg_.window});
  act_space_ = discrete_space(5);
}

double Shapes::window(int round) const {
  return cfg_.window * std::pow(cfg_.shrink, round);
}

void Shapes::require_reset() const {
  if (!started_) throw Error("Shapes-v0: step() called before reset()");
}

ResetResult Shapes::reset(std::optional<uint64_t> seed) {
  if (seed)
    rng_.emplace(*seed);
  else if (!rng_)
    rng_.emplace(NpRandom::from_entropy());
  seq_.clear();
  for (int r = 0; r < cfg_.rounds; ++r) {
    // Never the same shape twice in a row: a stale answer must not pass for a fresh one.
    int s = int(rng_->integers(0, r == 0 ? 4 : 3));
    if (r > 0 && s >= seq_.back()) ++s;
    seq_.push_back(s);
  }
  started_ = true;
  clock_ = round_start_ = 0;
  round_ = matched_ = 0;
  last_result_ = -1;
  return {observe(), {}};
}

bool Shapes::showing() const {
  return started_ && round_ < cfg_.rounds && clock_ >= round_start_ + cfg_.gap;
}

Values Shapes::observe() const {
  if (!started_ || round_ >= cfg_.rounds) return {double(kShapeNone), 0, double(round_), 0};
  const double w = window(round_);
  const double left = showing() ? round_start_ + cfg_.gap + w - clock_ : 0.0;
  return {double(showing() ? seq_[size_t(round_)] : kShapeNone), double(float(left)),
          double(round_), double(float(w))};
}

int64_t Shapes::challenge() const {
  if (round_ >= cfg_.rounds) return -1;
  return 2 * int64_t(round_) + (showing() ? 1 : 0);
}

void Shapes::end_round(bool matched) {
  matched_ += matched;
  last_result_ = matched;
  ++round_;
  round_start_ = clock_;
}

StepResult Shapes::advance(double seconds) {
  require_reset();
  if (!(seconds >= 0) || !std::isfinite(seconds))
    throw Error("Shapes-v0: advance() needs a finite time >= 0");
  const double until = clock_ + seconds;
  // Windows close at fixed instants; rounds that close on the way are missed in order.
  while (round_ < cfg_.rounds) {
    const double closes = round_start_ + cfg_.gap + window(round_);
    if (until < closes) break;
    clock_ = closes;
    end_round(false);
  }
  clock_ = until;
  StepResult out;
  out.terminated = round_ >= cfg_.rounds;
  out.obs = observe();
  return out;
}

StepResult Shapes::act(const Values& action) {
  const int64_t a = discrete_action(action, act_space_, id());
  require_reset();
  StepResult out;
  if (a != kShapeNone && showing()) {
    const bool hit = a == seq_[size_t(round_)];
    out.reward = hit ? 1.0 : 0.0;
    end_round(hit);
  }
  out.terminated = round_ >= cfg_.rounds;
  out.obs = observe();
  return out;
}

StepResult Shapes::step(const Values& action) {
  return act_then_advance(*this, action);
}

Scene Shapes::scene() const {
  constexpr double kW = 300, kH = 300;
  Scene sc;
  sc.width = int(kW);
  sc.height = int(kH);
  sc.background = {245, 245, 240};
  if (showing()) {
    const int s = seq_[size_t(round_)];
    const Rgb c = s % 2 == 0 ? Rgb{215, 40, 40} : Rgb{40, 170, 60};
    if (s < 2)
      sc.shapes.push_back(rect_shape(kW / 2 - 60, kH / 2 - 60, 120, 120, c));
    else
      sc.shapes.push_back(circle({kW / 2, kH / 2}, 64, c));
    // The window's time left as a shrinking bar along the bottom.
    const double w = window(round_);
    const double left = std::max(0.0, round_start_ + cfg_.gap + w - clock_);
    sc.shapes.push_back(
        rect_shape(10, kH - 24, std::max(1.0, (kW - 20) * left / w), 10, {90, 170, 90}));
  }
  char buf[96];
  const int shown = std::min(round_ + 1, cfg_.rounds);
  std::snprintf(buf, sizeof buf, "round %d/%d  window %.0f ms  matched %d", shown, cfg_.rounds,
                1000 * window(std::min(round_, cfg_.rounds - 1)), matched_);
  sc.shapes.push_back(text_shape(6, 4, buf, {30, 30, 30}, 12));
  if (last_result_ >= 0 && !showing())
    sc.shapes.push_back(text_shape(kW / 2 - 30, kH / 2 - 8, last_result_ ? "match" : "miss",
                                   last_result_ ? Rgb{30, 130, 30} : Rgb{200, 20, 20}, 18));
  return sc;
}

std::unique_ptr<Env> make_shapes(const Kwargs& kwargs) {
  ShapesConfig c;
  c.rounds = kwarg_or<int>(kwargs, "rounds", c.rounds);
  c.window = kwarg_or<double>(kwargs, "window", c.window);
  c.shrink = kwarg_or<double>(kwargs, "shrink", c.shrink);
  c.gap = kwarg_or<double>(kwargs, "gap", c.gap);
  c.dt = kwarg_or<double>(kwargs, "dt", c.dt);
  return std::make_unique<Shapes>(c);
}

}  // namespace meadow::envs
