#include "envs/pendulum.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "envs/factories.hpp"
#include "envs/float32.hpp"
#include "envs/kwargs.hpp"
#include "envs/libm_pow.hpp"
#include "envs/scene_util.hpp"
#include "meadow/error.hpp"

namespace meadow::envs {
namespace {

constexpr double kPi = std::numbers::pi;
constexpr double kMaxSpeed = 8, kMaxTorque = 2.0, kDt = 0.05, kMass = 1.0, kLength = 1.0;

Values obs_of(const PendulumState& s) {
  return float32_values({std::cos(s.th), std::sin(s.th), s.thdot});
}

// numpy's float64 remainder: fmod, then shift by the divisor when the signs differ.
double floor_mod(double a, double b) {
  double mod = std::fmod(a, b);
  if (mod != 0) {
    if ((b < 0) != (mod < 0)) mod += b;
  } else {
    mod = std::copysign(0.0, b);
  }
  return mod;
}

}  // namespace

double pendulum_angle_normalize(double x) {
  return floor_mod(x + kPi, 2 * kPi) - kPi;
}

// x ** 2 on a NumPy float64 is libm pow(x, 2.0), which is not always x * x.
double pendulum_step(PendulumState& s, float u_f32, double g) {
  const double u = u_f32;
  const double costs = numpy_square_pow(pendulum_angle_normalize(s.th)) +
                       0.1 * numpy_square_pow(s.thdot) + 0.001 * numpy_square_pow(u);
  const double gravity_term = 3 * g / (2 * kLength) * std::sin(s.th);
  const double torque_term = 3.0 / (kMass * (kLength * kLength)) * u;
  double newthdot = s.thdot + (gravity_term + torque_term) * kDt;
  newthdot = std::clamp(newthdot, -kMaxSpeed, kMaxSpeed);
  const double newth = s.th + newthdot * kDt;
  s = {newth, newthdot};
  return -costs;
}

PendulumEnv::PendulumEnv(double g) : g_(g) {
  obs_space_ = box_space({-1.0, -1.0, -kMaxSpeed}, {1.0, 1.0, kMaxSpeed});
  action_space_ = box_space({-kMaxTorque}, {kMaxTorque});
}

ResetResult PendulumEnv::reset(std::optional<uint64_t> seed) {
  rng_.reset(seed);
  // uniform(low=-[pi, 1], high=[pi, 1]): one draw per element.
  NpRandom& rng = rng_.get();
  state_.th = rng.uniform(-kPi, kPi);
  state_.thdot = rng.uniform(-1.0, 1.0);
  last_u_.reset();
  return {obs_of(state_), {}};
}

StepResult PendulumEnv::step(const Values& action) {
  const float u = std::clamp(static_cast<float>(action.at(0)), static_cast<float>(-kMaxTorque),
                             static_cast<float>(kMaxTorque));
  last_u_ = u;
  const double reward = pendulum_step(state_, u, g_);
  return {obs_of(state_), reward, false, false, {}};
}

// Mirrors PendulumEnv.render(): 500x500, rod rotated by th + pi/2 about the centre.
Scene PendulumEnv::scene() const {
  constexpr int kDim = 500;
  const double bound = 2.2;
  const double scale = kDim / (bound * 2);
  const double offset = kDim / 2;
  const double rod_length = 1 * scale, rod_width = 0.2 * scale;
  const YUp up{kDim};
  const Rgb red{204, 77, 77};
  Scene scene{kDim, kDim, {255, 255, 255}, {}};

  const double angle = state_.th + kPi / 2;
  const double l = 0, r = rod_length, t = rod_width / 2, b = -rod_width / 2;
  std::vector<Point> rod;
  for (auto [cx, cy] : {std::pair{l, b}, {l, t}, {r, t}, {r, b}}) {
    const Point c = rotate({cx, cy}, angle);
    rod.push_back(up(c.x + offset, c.y + offset));
  }
  scene.shapes.push_back(polygon(std::move(rod), red));
  const double joint_r = std::trunc(rod_width / 2);
  scene.shapes.push_back(circle(up(offset, offset), joint_r, red));
  const Point end = rotate({rod_length, 0}, angle);
  scene.shapes.push_back(
      circle(up(std::trunc(end.x + offset), std::trunc(end.y + offset)), joint_r, red));

  // Gymnasium blits a "clockwise" arrow image sized by |u|; we draw a 3/4 arc with a head,
  // counter-clockwise on screen for positive torque as the flipped image shows.
  if (last_u_ && *last_u_ != 0) {
    const double radius = scale * std::abs(*last_u_) / 4;
    const double dir = *last_u_ > 0 ? 1.0 : -1.0;
    std::vector<Point> arc;
    for (int i = 0; i <= 24; ++i) {
      const double a = dir * (-kPi / 4 + 1.5 * kPi * i / 24);
      arc.push_back(up(offset + radius * std::cos(a), offset + radius * std::sin(a)));
    }
    const Point tip = arc.back();
    const double a_end = dir * (-kPi / 4 + 1.5 * kPi);
    const double head = std::max(4.0, radius * 0.35);
    // Arrowhead: two lines back from the tip, along and across the arc's tangent.
    const double tx = -std::sin(a_end) * dir, ty = std::cos(a_end) * dir;  // y-up tangent
    const Point base{tip.x - head * tx, tip.y + head * ty};
    scene.shapes.push_back(polyline(std::move(arc), {0, 0, 0}, 2));
    scene.shapes.push_back(polygon({tip,
                                    {base.x + 0.5 * head * ty, base.y + 0.5 * head * tx},
                                    {base.x - 0.5 * head * ty, base.y - 0.5 * head * tx}},
                                   {0, 0, 0}));
  }
  scene.shapes.push_back(circle(up(offset, offset), std::trunc(0.05 * scale), {0, 0, 0}));
  return scene;
}

std::unique_ptr<Env> make_pendulum(const Kwargs& kwargs) {
  const double g = kwarg_or(kwargs, "g", 10.0);
  if (!std::isfinite(g)) throw Error("Pendulum-v1: g must be a finite number");
  return std::make_unique<PendulumEnv>(g);
}

}  // namespace meadow::envs
