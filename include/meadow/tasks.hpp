// Built-in tasks and the episode runner.
//
//   meadow::Mind mind;
//   meadow::BuiltinTask bt = meadow::builtin_task("cartpole");
//   mind.check(bt.task);                                   // the exam
//   auto run = meadow::run_episode(bt.task, meadow::mind_decider(mind), {.seed = 0});
//   std::puts(run.verdict.text.c_str());
//
// The runner takes the decision function as a parameter: the product always binds it to
// Mind::decide (mind_decider); tests may bind a test-only reader to prove a task's words
// suffice. Every recorded step (trace line, GIF frame) is one call of that function.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "meadow/mind.hpp"
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

std::vector<std::string> builtin_task_names();  // in listing order
// Throws meadow::Error naming the known tasks for an unknown name.
BuiltinTask builtin_task(std::string_view name);

// The full definition (name, summary, env, rule, options, exam, seeds, target) as JSON, for
// `meadow-mind list --json` and tools that read the tasks' sentences (train/heldout).
nlohmann::ordered_json task_json(const BuiltinTask& bt);

// One decision: status, letter and action for the current observation (see Mind::decide).
using DecideFn = std::function<Decided(Task& task, const Values& obs)>;
DecideFn mind_decider(Mind& mind);  // binds Mind::decide; the mind must outlive the function

struct RunOptions {
  uint64_t seed = 0;
  std::string gif_path;    // empty: no GIF
  std::string trace_path;  // empty: no trace
  int gif_delay_ms = 50;
  bool progress = false;  // a single updating stderr line, only when stderr is a terminal
  int loop_repeats = 4;   // memory off: a state seen this often prints the looping hint
};

struct RunResult {
  Episode episode;
  Verdict verdict;
  double p50_ms = 0, p95_ms = 0;  // decision latency
  int gif_frames = 0;
  std::optional<std::string> loop_hint;  // set when memory is off and states repeat
};

// reset(seed) → (decide → step → record) until terminated, truncated or task.max_steps.
// Clears the task's working memory first. Throws meadow::Error for a task without perceiver,
// an env error or an unwritable file.
RunResult run_episode(Task& task, const DecideFn& decide, const RunOptions& opts);

// Nearest-rank percentile (q in [0, 1]) of latencies; 0 for none.
double percentile(std::vector<double> values, double q);

}  // namespace meadow
