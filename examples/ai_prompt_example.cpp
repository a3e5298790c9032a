#include <cmath>
#include <cstdint>
#include <string>

#include "meadow/env.hpp"
#include "meadow/mind.hpp"
#include "meadow/runner.hpp"

meadow::Task cartpole() {
  meadow::Task t;
  t.name = "cartpole";
  t.env_id = "CartPole-v1";
  t.max_steps = 500;
  t.rule =
      "If the pole leans or falls to the left, choose A; "
      "if it leans or falls to the right, choose B.";
  t.options = {{'A', "push the cart to the left", {0}, "left"},
               {'B', "push the cart to the right", {1}, "right"}};
  t.perceive = [](const meadow::Values& o) {
    const double lean = o[2] + 0.5 * o[3];  // angle plus a velocity (trend) term
    const char* side = lean < 0 ? "left" : "right";
    const char* speed = std::abs(o[3]) > 0.5 ? "fast" : "slowly";
    return std::string("The pole leans to the ") + side + " and falls " + speed + ".";
  };
  t.sanity = {{"The pole leans to the left and falls fast.", 'A'},
              {"The pole leans to the right and falls slowly.", 'B'},
              {"The pole leans to the right and falls fast.", 'B'},
              {"The pole leans to the left and falls slowly.", 'A'}};
  t.judge = [](const meadow::Episode& e) {
    return meadow::Verdict{e.steps.size() >= 500,
                           "balanced " + std::to_string(e.steps.size()) + " steps"};
  };
  return t;
}

int main() {
  meadow::Mind mind;  // MEADOW_MIND_MODEL, cache dir or the embedded model
  auto task = cartpole();
  mind.check(task);  // the exam first: throws meadow::ExamFailed on failure
  auto env = meadow::make(task.env_id, task.env_kwargs);
  auto obs = env->reset(42).obs;
  task.forget();
  for (int64_t i = 0; i < task.max_steps; ++i) {
    auto [action, info] = mind.decide(task, obs);  // info: status, letter, probs, margin
    auto s = env->step(action);
    obs = s.obs;
    if (s.terminated || s.truncated) break;
  }
}
