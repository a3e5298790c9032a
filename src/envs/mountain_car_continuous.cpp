#include "envs/mountain_car_continuous.hpp"

#include <algorithm>
#include <cmath>

#include "envs/factories.hpp"
#include "envs/float32.hpp"
#include "envs/kwargs.hpp"
#include "envs/libm_pow.hpp"
#include "envs/mountain_car_scene.hpp"
#include "envs/scene_util.hpp"

namespace meadow::envs {
namespace {

constexpr double kMinAction = -1.0, kMaxAction = 1.0;
constexpr double kMinPosition = -1.2, kMaxPosition = 0.6, kMaxSpeed = 0.07;
constexpr double kGoalPosition = 0.45, kPower = 0.0015;

Values obs_of(const MountainCarContinuousState& s) {
  return float32_values({s.position, s.velocity});
}

}  // namespace

// NumPy 1.x promotes the float32 action and state to float64 in every expression.
MountainCarContinuousOutcome mountain_car_continuous_step(MountainCarContinuousState& s,
                                                          float action, double goal_velocity) {
  const double a = action;
  const double force = std::min(std::max(a, kMinAction), kMaxAction);
  const double push = force * kPower;
  const double pull = 0.0025 * std::cos(3 * s.position);
  double velocity = s.velocity + (push - pull);
  if (velocity > kMaxSpeed) velocity = kMaxSpeed;
  if (velocity < -kMaxSpeed) velocity = -kMaxSpeed;
  double position = s.position + velocity;
  if (position > kMaxPosition) position = kMaxPosition;
  if (position < kMinPosition) position = kMinPosition;
  if (position == kMinPosition && velocity < 0) velocity = 0;

  MountainCarContinuousOutcome out;
  out.terminated = position >= kGoalPosition && velocity >= goal_velocity;
  double reward = out.terminated ? 100.0 : 0.0;
  reward -= numpy_square_pow(a) * 0.1;
  out.reward = reward;
  s = {static_cast<float>(position), static_cast<float>(velocity)};
  return out;
}

MountainCarContinuousEnv::MountainCarContinuousEnv(double goal_velocity)
    : goal_velocity_(goal_velocity) {
  obs_space_ = box_space({kMinPosition, -kMaxSpeed}, {kMaxPosition, kMaxSpeed});
  action_space_ = box_space({kMinAction}, {kMaxAction});
}

ResetResult MountainCarContinuousEnv::reset(std::optional<uint64_t> seed) {
  rng_.reset(seed);
  state_ = {rng_.get().uniform(-0.6, -0.4), 0.0};
  return {obs_of(state_), {}};
}

StepResult MountainCarContinuousEnv::step(const Values& action) {
  const auto out =
      mountain_car_continuous_step(state_, static_cast<float>(action.at(0)), goal_velocity_);
  return {obs_of(state_), out.reward, out.terminated, false, {}};
}

Scene MountainCarContinuousEnv::scene() const {
  return mountain_car_scene(state_.position, kGoalPosition);
}

std::unique_ptr<Env> make_mountain_car_continuous(const Kwargs& kwargs) {
  return std::make_unique<MountainCarContinuousEnv>(kwarg_or(kwargs, "goal_velocity", 0.0));
}

}  // namespace meadow::envs
