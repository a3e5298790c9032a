// The real-time games' common shape: the world is a function of elapsed game time, so the same
// env runs in simulated time (a fixed dt per Gymnasium step, deterministic) and in real time
// (a runner advances it by the seconds a monotonic clock measured, then applies the action the
// mind delivered). step(action) == act(action) then advance(dt).
//
// A "challenge" is the thing a decision is about: an approaching obstacle, a shown shape, or the
// quiet gap before the next one. Its id changes whenever that thing is resolved or replaced, so
// a runner can tell whether an answer arrived while its question was still open (in time) or
// after (late: the world has moved on and the answer is dropped).
#pragma once

#include <cstdint>

#include "meadow/env.hpp"

namespace meadow::envs {

class TimedEnv : public Env {
 public:
  // Game seconds since reset().
  virtual double clock() const = 0;
  // Moves the world forward by `seconds` (>= 0) of game time: impacts happen, windows close,
  // the next challenge appears. Reward and termination as step() would report them.
  virtual StepResult advance(double seconds) = 0;
  // Applies an action at the present instant; no time passes.
  virtual StepResult act(const Values& action) = 0;
  // The open challenge's id (see the header comment); -1 once the episode is over.
  virtual int64_t challenge() const = 0;
  // The observation at the present instant.
  virtual Values observe() const = 0;
  // The fixed dt of step(), seconds.
  virtual double dt() const = 0;
};

// act() then advance(dt): rewards add up, termination of either ends the step.
StepResult act_then_advance(TimedEnv& env, const Values& action);

}  // namespace meadow::envs
