// Built-in tasks (each played by the episode runner, meadow/runner.hpp).
//
//   meadow::Mind mind;
//   meadow::BuiltinTask bt = meadow::builtin_task("cartpole");
//   mind.check(bt.task);                                   // the exam
//   auto run = meadow::run_episode(bt.task, meadow::mind_decider(mind), {.seed = 0});
//   std::puts(run.verdict.text.c_str());
//
// Stability: everything here is stable (kept across releases; fields may be added) unless
// marked "Experimental:", which may change or go.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "meadow/mind.hpp"
#include "meadow/runner.hpp"
#include "meadow/task.hpp"

namespace meadow {

// A built-in task with its fixed seeds and the target its episodes must reach together.
struct BuiltinTask {
  Task task;
  std::vector<uint64_t> seeds;  // fixed, printed; `meadow-mind <task>` plays seeds[0]
  std::string target;           // "500 steps on each of 10 seeds"
  // Several episodes (one per seed) → one verdict line against `target`.
  std::function<Verdict(const std::vector<Episode>&)> judge_all;
  // A real-time game (meadow/realtime.hpp): `meadow-mind <task>` plays it against the wall
  // clock; `play` steps it turn by turn in simulated time.
  bool realtime = false;
};

// The names builtin_task takes ("cartpole", "mountaincar", ...), in listing order.
std::vector<std::string> builtin_task_names();
// Throws meadow::Error naming the known tasks for an unknown name.
BuiltinTask builtin_task(std::string_view name);

// The full definition (name, summary, env, rule, options, exam, seeds, target) as JSON, for
// `meadow-mind list --json` and tools that read the tasks' sentences (train/common/heldout).
nlohmann::ordered_json task_json(const BuiltinTask& bt);

}  // namespace meadow
