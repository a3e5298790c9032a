#include "envs/mountain_car.hpp"

#include <algorithm>
#include <cmath>

#include "envs/factories.hpp"
#include "envs/float32.hpp"
#include "envs/kwargs.hpp"
#include "envs/mountain_car_scene.hpp"
#include "envs/scene_util.hpp"

namespace meadow::envs {
namespace {

constexpr double kMinPosition = -1.2, kMaxPosition = 0.6, kMaxSpeed = 0.07;
constexpr double kGoalPosition = 0.5, kForce = 0.001, kGravity = 0.0025;

Values obs_of(const MountainCarState& s) {
  return float32_values({s.position, s.velocity});
}

}  // namespace

bool mountain_car_step(MountainCarState& s, int action, double goal_velocity) {
  // velocity += (action - 1) * force + cos(3 * position) * (-gravity), in that order.
  const double push = (action - 1) * kForce;
  const double pull = std::cos(3 * s.position) * (-kGravity);
  double velocity = s.velocity + (push + pull);
  velocity = std::clamp(velocity, -kMaxSpeed, kMaxSpeed);
  double position = s.position + velocity;
  position = std::clamp(position, kMinPosition, kMaxPosition);
  if (position == kMinPosition && velocity < 0) velocity = 0;
  s = {position, velocity};
  return position >= kGoalPosition && velocity >= goal_velocity;
}

MountainCarEnv::MountainCarEnv(double goal_velocity) : goal_velocity_(goal_velocity) {
  obs_space_ = box_space({kMinPosition, -kMaxSpeed}, {kMaxPosition, kMaxSpeed});
  action_space_ = discrete_space(3);
}

ResetResult MountainCarEnv::reset(std::optional<uint64_t> seed) {
  rng_.reset(seed);
  state_ = {rng_.get().uniform(-0.6, -0.4), 0.0};
  return {obs_of(state_), {}};
}

StepResult MountainCarEnv::step(const Values& action) {
  const bool terminated = mountain_car_step(state_, static_cast<int>(action.at(0)), goal_velocity_);
  return {obs_of(state_), -1.0, terminated, false, {}};
}

Scene MountainCarEnv::scene() const {
  return mountain_car_scene(state_.position, kGoalPosition);
}

std::unique_ptr<Env> make_mountain_car(const Kwargs& kwargs) {
  return std::make_unique<MountainCarEnv>(kwarg_or(kwargs, "goal_velocity", 0.0));
}

}  // namespace meadow::envs
