// mountaincar: pump energy like a swing until the car reaches the flag.
#include <cmath>

#include "tasks/builtin.hpp"

namespace meadow::tasks {
namespace {

// Where a still car should start its swing. Measured on MountainCar-v0 (seeds 0-9 and
// 100-399 with the velocity-sign policy): starting right from left of -0.485 and letting the
// car roll left from right of it saves a whole swing on some starts (mean 106 vs 117 steps).
constexpr double kMiddle = -0.485;

std::string perceive(const Values& obs) {
  const double x = obs.at(0), v = obs.at(1);
  if (v == 0)
    return std::string("the car is still ") + (x < kMiddle ? "left" : "right") + " of the middle";
  const double speed = std::abs(v);
  const char* pace = speed < 0.01 ? " slowly" : speed < 0.03 ? "" : " fast";
  const double height = std::sin(3 * x);  // track height: -1 valley floor, 1 hilltops
  const char* where = height < -0.6  ? "low in the valley"
                      : height < 0.2 ? "halfway up a hill"
                                     : "high up a hill";
  return std::string("the car is moving ") + (v > 0 ? "right" : "left") + pace + " and is " + where;
}

}  // namespace

BuiltinTask make_mountaincar_task() {
  BuiltinTask bt;
  Task& t = bt.task;
  t.name = "mountaincar";
  t.summary = "drive an underpowered car up to the flag by swinging (MountainCar-v0)";
  t.perceive = perceive;
  t.rule =
      "Push in the same direction the car is moving, to pump energy like a swing. If the car is "
      "still left of the middle, choose C. If the car is still right of the middle, choose B.";
  t.options = {{'A', "push left", {0}, "left"},
               {'B', "do nothing", {1}, "none"},
               {'C', "push right", {2}, "right"}};
  t.sanity = {
      {"the car is moving left and is low in the valley", 'A'},
      {"the car is moving right and is low in the valley", 'C'},
      {"the car is moving left fast and is halfway up a hill", 'A'},
      {"the car is moving right fast and is halfway up a hill", 'C'},
      {"the car is moving left slowly and is high up a hill", 'A'},
      {"the car is moving right slowly and is high up a hill", 'C'},
      {"the car is still left of the middle", 'C'},
      {"the car is still right of the middle", 'B'},
      {"the car is moving right slowly and is low in the valley", 'C'},
      {"the car is moving left fast and is low in the valley", 'A'},
  };
  t.env_id = "MountainCar-v0";
  t.max_steps = 200;
  t.judge = [](const Episode& ep) {
    const auto n = std::to_string(ep.steps.size());
    const std::string seed = " (seed " + std::to_string(ep.seed) + ")";
    if (ep.terminated) return Verdict{true, "reached the flag in " + n + " steps" + seed};
    return Verdict{false, "did not reach the flag in " + n + " steps" + seed};
  };
  bt.seeds = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  bt.target = "the flag on each of 10 seeds, mean <= 110 steps, best <= 103";
  bt.judge_all = [](const std::vector<Episode>& eps) {
    size_t flags = 0, best = SIZE_MAX, sum = 0;
    for (const auto& e : eps) {
      flags += e.terminated;
      sum += e.steps.size();
      best = std::min(best, e.steps.size());
    }
    const double mean = eps.empty() ? 0 : double(sum) / double(eps.size());
    const bool ok = !eps.empty() && flags == eps.size() && mean <= 110 && best <= 103;
    return Verdict{ok, "flag on " + std::to_string(flags) + "/" + std::to_string(eps.size()) +
                           " seeds, mean " + fixed1(mean) + " steps, best " +
                           std::to_string(eps.empty() ? 0 : best)};
  };
  return bt;
}

}  // namespace meadow::tasks
