// One factory per environment family. Each receives kwargs the registry has already checked
// against the env's accepted names and JSON types (render_mode and max_episode_steps removed);
// it validates values (ranges, choices) itself and throws meadow::Error on bad ones.
// To add an env: declare its factory here and add one line to the table in registry.cpp.
#pragma once

#include <memory>

#include "meadow/env.hpp"

namespace meadow::envs {

std::unique_ptr<Env> make_cartpole(const Kwargs& kwargs);
std::unique_ptr<Env> make_mountain_car(const Kwargs& kwargs);
std::unique_ptr<Env> make_mountain_car_continuous(const Kwargs& kwargs);
std::unique_ptr<Env> make_acrobot(const Kwargs& kwargs);
std::unique_ptr<Env> make_pendulum(const Kwargs& kwargs);
std::unique_ptr<Env> make_frozen_lake(const Kwargs& kwargs);
std::unique_ptr<Env> make_cliff_walking(const Kwargs& kwargs);
std::unique_ptr<Env> make_taxi(const Kwargs& kwargs);
std::unique_ptr<Env> make_lunar_lander(const Kwargs& kwargs);
std::unique_ptr<Env> make_maze(const Kwargs& kwargs);  // meadow's own, not Gymnasium's
// meadow's own real-time games (envs/timed_env.hpp)
std::unique_ptr<Env> make_parkour(const Kwargs& kwargs);
std::unique_ptr<Env> make_shapes(const Kwargs& kwargs);

}  // namespace meadow::envs
