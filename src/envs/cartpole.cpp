#include "envs/cartpole.hpp"

#include <cmath>
#include <numbers>

#include "envs/factories.hpp"
#include "envs/kwargs.hpp"
#include "envs/scene_util.hpp"

namespace meadow::envs {
namespace {

// Constants computed with Python's expressions so the doubles match.
constexpr double kGravity = 9.8;
constexpr double kMassCart = 1.0;
constexpr double kMassPole = 0.1;
constexpr double kTotalMass = kMassPole + kMassCart;
constexpr double kLength = 0.5;  // half the pole's length
constexpr double kPoleMassLength = kMassPole * kLength;
constexpr double kForceMag = 10.0;
constexpr double kTau = 0.02;
constexpr double kThetaThreshold = 12 * 2 * std::numbers::pi / 360;
constexpr double kXThreshold = 2.4;

}  // namespace

CartPoleState cartpole_dynamics(const CartPoleState& s, int action) {
  const double force = action == 1 ? kForceMag : -kForceMag;
  const double costheta = std::cos(s.theta);
  const double sintheta = std::sin(s.theta);
  const double temp =
      (force + kPoleMassLength * (s.theta_dot * s.theta_dot) * sintheta) / kTotalMass;
  const double thetaacc = (kGravity * sintheta - costheta * temp) /
                          (kLength * (4.0 / 3.0 - kMassPole * (costheta * costheta) / kTotalMass));
  const double xacc = temp - kPoleMassLength * thetaacc * costheta / kTotalMass;
  return {s.x + kTau * s.x_dot, s.x_dot + kTau * xacc, s.theta + kTau * s.theta_dot,
          s.theta_dot + kTau * thetaacc};
}

bool cartpole_failed(const CartPoleState& s) {
  return s.x < -kXThreshold || s.x > kXThreshold || s.theta < -kThetaThreshold ||
         s.theta > kThetaThreshold;
}

std::array<float, 4> cartpole_obs(const CartPoleState& s) {
  return {static_cast<float>(s.x), static_cast<float>(s.x_dot), static_cast<float>(s.theta),
          static_cast<float>(s.theta_dot)};
}

CartPoleEnv::CartPoleEnv(bool sutton_barto_reward) : sutton_barto_reward_(sutton_barto_reward) {
  const double x_high = kXThreshold * 2;
  const double theta_high = kThetaThreshold * 2;
  const double inf = INFINITY;
  obs_space_ = box_space({-x_high, -inf, -theta_high, -inf}, {x_high, inf, theta_high, inf});
  action_space_ = discrete_space(2);
}

void CartPoleEnv::reset_state(std::optional<uint64_t> seed) {
  rng_.reset(seed);
  NpRandom& rng = rng_.get();
  // uniform(low=-0.05, high=0.05, size=(4,))
  state_.x = rng.uniform(-0.05, 0.05);
  state_.x_dot = rng.uniform(-0.05, 0.05);
  state_.theta = rng.uniform(-0.05, 0.05);
  state_.theta_dot = rng.uniform(-0.05, 0.05);
  steps_beyond_terminated_ = -1;
}

CartPoleOutcome CartPoleEnv::step_state(int action) {
  state_ = cartpole_dynamics(state_, action);
  CartPoleOutcome out;
  out.terminated = cartpole_failed(state_);
  if (!out.terminated) {
    out.reward = sutton_barto_reward_ ? 0.0 : 1.0;
  } else if (steps_beyond_terminated_ < 0) {
    steps_beyond_terminated_ = 0;  // the pole just fell
    out.reward = sutton_barto_reward_ ? -1.0 : 1.0;
  } else {
    ++steps_beyond_terminated_;
    out.reward = sutton_barto_reward_ ? -1.0 : 0.0;
  }
  return out;
}

ResetResult CartPoleEnv::reset(std::optional<uint64_t> seed) {
  reset_state(seed);
  const auto obs = cartpole_obs(state_);
  return {Values(obs.begin(), obs.end()), {}};
}

StepResult CartPoleEnv::step(const Values& action) {
  const auto out = step_state(static_cast<int>(action.at(0)));
  const auto obs = cartpole_obs(state_);
  return {Values(obs.begin(), obs.end()), out.reward, out.terminated, false, {}};
}

// Gymnasium's render(): 600x400, world drawn with y up then flipped.
Scene CartPoleEnv::scene() const {
  constexpr int kW = 600, kH = 400;
  const double scale = kW / (kXThreshold * 2);
  const double polewidth = 10.0, polelen = scale * (2 * kLength);
  const double cartwidth = 50.0, cartheight = 30.0;
  const double axleoffset = cartheight / 4.0;
  const double cartx = state_.x * scale + kW / 2.0;
  const double carty = 100;
  YUp up{kH};

  Scene scene{kW, kH, {255, 255, 255}, {}};
  const double l = -cartwidth / 2, r = cartwidth / 2, t = cartheight / 2, b = -cartheight / 2;
  scene.shapes.push_back(polygon({up(cartx + l, carty + b), up(cartx + l, carty + t),
                                  up(cartx + r, carty + t), up(cartx + r, carty + b)},
                                 {0, 0, 0}));

  const double pl = -polewidth / 2, pr = polewidth / 2, pt = polelen - polewidth / 2,
               pb = -polewidth / 2;
  std::vector<Point> pole;
  for (auto [px, py] : {std::pair{pl, pb}, {pl, pt}, {pr, pt}, {pr, pb}}) {
    const Point p = rotate({px, py}, -state_.theta);
    pole.push_back(up(p.x + cartx, p.y + carty + axleoffset));
  }
  scene.shapes.push_back(polygon(std::move(pole), {202, 152, 101}));
  scene.shapes.push_back(circle(up(std::floor(cartx), std::floor(carty + axleoffset)),
                                std::floor(polewidth / 2), {129, 132, 203}));
  scene.shapes.push_back(polyline({up(0, carty), up(kW, carty)}, {0, 0, 0}, 1));
  return scene;
}

std::unique_ptr<Env> make_cartpole(const Kwargs& kwargs) {
  return std::make_unique<CartPoleEnv>(kwarg_or(kwargs, "sutton_barto_reward", false));
}

}  // namespace meadow::envs
