// What every TimedEnv promises (src/envs/timed_env.hpp): step() is act() then advance(dt), so
// simulated time and a real-time runner (act, then advance by measured seconds) see the same
// world at the same instants.
#pragma once

#include <gtest/gtest.h>

#include "envs/timed_env.hpp"
#include "meadow/env.hpp"

namespace meadow::test {

// `a` and `b` alike and reset with the same seed: `a` steps, `b` acts then advances by dt, for
// `steps` steps with action i % n_actions; observations and rewards must agree at every step.
inline void expect_step_is_act_then_advance(envs::TimedEnv& a, envs::TimedEnv& b, int steps,
                                            int n_actions) {
  for (int i = 0; i < steps; ++i) {
    const Values act{double(i % n_actions)};
    const auto sa = a.step(act);
    const double got = b.act(act).reward;
    const auto sb = b.advance(b.dt());
    EXPECT_EQ(sa.obs, sb.obs) << "step " << i;
    EXPECT_EQ(sa.reward, got + sb.reward) << "step " << i;
  }
}

}  // namespace meadow::test
