// The picture both MountainCar envs share: hill, car with wheels, goal flag (600x400).
#pragma once

#include "meadow/scene.hpp"

namespace meadow::envs {

Scene mountain_car_scene(double position, double goal_position);

}  // namespace meadow::envs
