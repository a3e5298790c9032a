// Gymnasium's published heuristic lander controller (lunar_lander.py `heuristic(env, s)`),
// a baseline for tasks and the check that our physics lands like Gymnasium's: it averages
// about 237 (discrete) and 284 (continuous) over 1000 seeds there.
#pragma once

#include "meadow/env.hpp"

namespace meadow::envs {

// The action for observation s (8 values): Discrete 0..3 as one value, or the continuous
// [main, lateral] throttles clipped to [-1, 1].
Values lunar_lander_heuristic(const Values& s, bool continuous);

}  // namespace meadow::envs
