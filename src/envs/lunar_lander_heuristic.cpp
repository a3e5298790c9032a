#include "envs/lunar_lander_heuristic.hpp"

#include <algorithm>
#include <cmath>

#include "meadow/error.hpp"

namespace meadow::envs {

Values lunar_lander_heuristic(const Values& s, bool continuous) {
  if (s.size() != 8) throw Error("lunar_lander_heuristic: observation must have 8 values");
  // Point towards the pad, but never tilt more than 0.4 rad (22 degrees).
  const double angle_targ = std::clamp(s[0] * 0.5 + s[2] * 1.0, -0.4, 0.4);
  // Hover lower the closer to the pad horizontally.
  const double hover_targ = 0.55 * std::abs(s[0]);
  double angle_todo = (angle_targ - s[4]) * 0.5 - s[5] * 1.0;
  double hover_todo = (hover_targ - s[1]) * 0.5 - s[3] * 0.5;
  if (s[6] != 0 || s[7] != 0) {  // legs down: only slow the descent
    angle_todo = 0;
    hover_todo = -s[3] * 0.5;
  }
  if (continuous)
    return {std::clamp(hover_todo * 20 - 1, -1.0, 1.0), std::clamp(-angle_todo * 20, -1.0, 1.0)};
  int a = 0;
  if (hover_todo > std::abs(angle_todo) && hover_todo > 0.05)
    a = 2;
  else if (angle_todo < -0.05)
    a = 3;
  else if (angle_todo > +0.05)
    a = 1;
  return {static_cast<double>(a)};
}

}  // namespace meadow::envs
