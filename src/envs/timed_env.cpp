#include "envs/timed_env.hpp"

namespace meadow::envs {

StepResult act_then_advance(TimedEnv& env, const Values& action) {
  StepResult a = env.act(action);
  if (a.terminated) return a;
  StepResult b = env.advance(env.dt());
  b.reward += a.reward;
  return b;
}

}  // namespace meadow::envs
