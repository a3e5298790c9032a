// cartpole: keep the pole up by pushing the cart toward the side it is falling.
#include <cmath>

#include "tasks/builtin.hpp"

namespace meadow::tasks {
namespace {

// Perception. "Falling" is the pole's trend: the lean it will have in half a second at its
// present angular speed (angle + 0.5 s * angular velocity). The angular velocity alone is not
// enough words: a policy that follows only its sign loses the pole in 140-240 steps.
std::string perceive(const Values& obs) {
  const double theta = obs.at(2), theta_dot = obs.at(3);
  const std::string falling = theta + 0.5 * theta_dot > 0 ? "right" : "left";
  const std::string side = theta > 0 ? "right" : "left";
  std::string lean;
  if (std::abs(theta) < 0.02)
    lean = "is nearly upright";
  else if (std::abs(theta) < 0.1)
    lean = "leans slightly " + side;
  else
    lean = "leans far " + side;
  return "the pole is falling " + falling + " and " + lean;
}

}  // namespace

BuiltinTask make_cartpole_task() {
  BuiltinTask bt;
  Task& t = bt.task;
  t.name = "cartpole";
  t.summary = "balance a pole on a cart for 500 steps (CartPole-v1)";
  t.perceive = perceive;
  t.rule = "If the pole is falling left, choose A. If the pole is falling right, choose B.";
  t.options = {{'A', "push the cart left", {0}, "left"},
               {'B', "push the cart right", {1}, "right"}};
  t.sanity = {
      {"the pole is falling left and leans slightly left", 'A'},
      {"the pole is falling right and leans slightly right", 'B'},
      {"the pole is falling left and leans slightly right", 'A'},
      {"the pole is falling right and leans slightly left", 'B'},
      {"the pole is falling left and is nearly upright", 'A'},
      {"the pole is falling right and is nearly upright", 'B'},
      {"the pole is falling left and leans far left", 'A'},
      {"the pole is falling right and leans far right", 'B'},
      {"the pole is falling right and leans far left", 'B'},
      {"the pole is falling left and leans far right", 'A'},
  };
  t.env_id = "CartPole-v1";
  t.max_steps = 500;
  t.judge = [](const Episode& ep) {
    const auto n = ep.steps.size();
    const bool ok = n >= 500 && !ep.terminated;
    return Verdict{ok, std::string(ok ? "balanced " : "the pole fell after ") + std::to_string(n) +
                           "/500 steps (seed " + std::to_string(ep.seed) + ")"};
  };
  bt.seeds = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  bt.target = "the full 500 steps on each of 10 seeds";
  bt.judge_all = [](const std::vector<Episode>& eps) {
    size_t full = 0;
    for (const auto& e : eps) full += e.steps.size() >= 500 && !e.terminated;
    return Verdict{full == eps.size() && !eps.empty(), "balanced 500/500 steps on " +
                                                           std::to_string(full) + "/" +
                                                           std::to_string(eps.size()) + " seeds"};
  };
  return bt;
}

}  // namespace meadow::tasks
