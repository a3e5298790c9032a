// One factory per built-in task (one file each); registry.cpp lists them.
#pragma once

#include <string>

#include "meadow/tasks.hpp"

namespace meadow::tasks {

BuiltinTask make_cartpole_task();
BuiltinTask make_mountaincar_task();
BuiltinTask make_frozenlake_task();
BuiltinTask make_lunarlander_task();
BuiltinTask make_maze_task();
BuiltinTask make_parkour_task();
BuiltinTask make_shapes_task();

// "12.3" style number for verdict lines.
std::string fixed1(double v);

}  // namespace meadow::tasks
