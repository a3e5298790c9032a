// JSON text for env values, written the way Gymnasium + Python's json would write them, and
// JSON actions read back into env values.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "meadow/env.hpp"

namespace meadow::cli {

// An observation: an int for Discrete, (nested per shape) lists of Python-repr floats for Box.
std::string value_json(const Values& v, const Space& space);

// A reward: an int for toy-text envs (Discrete observations) when it is whole, else a float.
std::string reward_json(double reward, const Space& observation_space);

// A space as the gym-traces schema writes it ({"type": "Discrete", "n", "start"} or
// {"type": "Box", "shape", "dtype", "low", "high"}, infinite bounds as "inf"/"-inf").
nlohmann::json space_json(const Space& space);

// One action from a JSON list: an integer for Discrete, a list of numbers (nested per shape)
// for Box, rounded to the space's dtype. Throws meadow::Error "SOURCE: action INDEX (...): ..."
// (SOURCE e.g. "actions file a.json"), also for a number the dtype cannot hold.
Values parse_action(const nlohmann::json& a, const Space& space, size_t index,
                    const std::string& source);

}  // namespace meadow::cli
