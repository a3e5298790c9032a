// lunarlander: land between the flags, firing the engine the lander's situation calls for.
#include <algorithm>
#include <cmath>

#include "tasks/builtin.hpp"

namespace meadow::tasks {
namespace {

// Perception. The lander's state becomes one of four words by comparing it with where it
// should be: the angle it should hold (pointing its course at the pad, at most 0.4 rad) and
// the height it should hover at (lower the closer it is to the pad), each error counted with
// its trend (angular and vertical speed). These are the error terms of Gymnasium's published
// heuristic controller; the rule, not this code, says which engine each word calls for.
// Drift and height are added as context words.
std::string perceive(const Values& s) {
  const double angle_targ = std::clamp(s.at(0) * 0.5 + s.at(2) * 1.0, -0.4, 0.4);
  const double hover_targ = 0.55 * std::abs(s.at(0));
  double angle_err = (angle_targ - s.at(4)) * 0.5 - s.at(5) * 1.0;
  double hover_err = (hover_targ - s.at(1)) * 0.5 - s.at(3) * 0.5;
  const bool legs = s.at(6) != 0 || s.at(7) != 0;
  if (legs) {  // touching down: only the descent matters
    angle_err = 0;
    hover_err = -s.at(3) * 0.5;
  }
  std::string out;
  if (hover_err > std::abs(angle_err) && hover_err > 0.05)
    out = "the lander sinks too fast";
  else if (angle_err < -0.05)
    out = "the lander leans too far left";
  else if (angle_err > 0.05)
    out = "the lander leans too far right";
  else
    out = "the lander is steady";
  const double vx = s.at(2);
  out += std::abs(vx) < 0.05 ? ", hardly drifting"
         : vx > 0            ? ", drifting right"
                             : ", drifting left";
  const double y = s.at(1);
  out += y > 0.8 ? ", high above the pad" : y > 0.25 ? ", low above the pad" : ", near the ground";
  if (legs) out += ", legs touching";
  return out;
}

}  // namespace

BuiltinTask make_lunarlander_task() {
  BuiltinTask bt;
  Task& t = bt.task;
  t.name = "lunarlander";
  t.summary = "land the craft on the pad between the flags (LunarLander-v3)";
  t.perceive = perceive;
  t.rule =
      "If the lander sinks too fast, choose C. If the lander leans too far left, choose D. If "
      "the lander leans too far right, choose B. Otherwise choose A.";
  t.options = {{'A', "do nothing", {0}, "none"},
               {'B', "fire the left engine", {1}, "left"},
               {'C', "fire the main engine", {2}, "main"},
               {'D', "fire the right engine", {3}, "right"}};
  t.sanity = {
      {"the lander sinks too fast, hardly drifting, high above the pad", 'C'},
      {"the lander sinks too fast, drifting left, near the ground", 'C'},
      {"the lander leans too far left, drifting right, high above the pad", 'D'},
      {"the lander leans too far left, drifting left, low above the pad", 'D'},
      {"the lander leans too far right, drifting left, low above the pad", 'B'},
      {"the lander leans too far right, hardly drifting, high above the pad", 'B'},
      {"the lander is steady, drifting right, low above the pad", 'A'},
      {"the lander is steady, hardly drifting, near the ground, legs touching", 'A'},
      {"the lander sinks too fast, drifting right, near the ground, legs touching", 'C'},
      {"the lander is steady, drifting left, high above the pad", 'A'},
  };
  t.env_id = "LunarLander-v3";
  t.max_steps = 1000;
  t.judge = [](const Episode& ep) {
    const std::string score = fixed1(ep.total_reward);
    const std::string tail =
        " in " + std::to_string(ep.steps.size()) + " steps (seed " + std::to_string(ep.seed) + ")";
    if (ep.total_reward >= 200) return Verdict{true, "scored " + score + tail};
    return Verdict{false, "scored " + score + " (below 200)" + tail};
  };
  bt.seeds = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  bt.target = "mean score >= 200 over 10 seeds, best >= 251";
  bt.judge_all = [](const std::vector<Episode>& eps) {
    double sum = 0, best = -1e300;
    for (const auto& e : eps) {
      sum += e.total_reward;
      best = std::max(best, e.total_reward);
    }
    const double mean = eps.empty() ? 0 : sum / double(eps.size());
    const bool ok = !eps.empty() && mean >= 200 && best >= 251;
    return Verdict{ok, "mean score " + fixed1(mean) + " over " + std::to_string(eps.size()) +
                           " seeds, best " + fixed1(eps.empty() ? 0 : best)};
  };
  return bt;
}

}  // namespace meadow::tasks
