// One factory per built-in task (one file each); registry.cpp lists them.
#pragma once

#include <functional>
#include <string>
#include <vector>

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

// The real-time games' judges: six scored by reward in one episode ("cleared 4/6 obstacles
// (seed 0)"), and every seed's episode at six ("all 6 cleared on 1/1 seeds").
Verdict six_of_six(const Episode& ep, const std::string& verb, const std::string& things);
std::function<Verdict(const std::vector<Episode>&)> six_on_every_seed(const std::string& verb,
                                                                      const std::string& things);

}  // namespace meadow::tasks
