// The episode runner and what it records.
//
//   auto run = meadow::run_episode(task, meadow::mind_decider(mind), {.seed = 0});
//   for (const meadow::EpisodeStep& s : run.episode.steps) s.decision.letter ...
//
// The runner takes the decision function as a parameter: the product always binds it to
// Mind::decide (mind_decider); tests may bind a test-only reader to prove a task's words
// suffice. Every recorded step (trace line, GIF frame) is one call of that function, and keeps
// that call's decision record as it came (meadow/decision.hpp), no field copied out of it.
//
// Stability: everything here is stable (kept across releases; fields may be added) unless
// marked "Experimental:", which may change or go.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "meadow/decision.hpp"
#include "meadow/mind.hpp"
#include "meadow/task.hpp"
#include "meadow/values.hpp"

namespace meadow {

// One step of an episode: the decision, the action it chose and what the env answered.
struct EpisodeStep {
  int64_t step = 0;   // 0, 1, ... within the episode
  Decision decision;  // status, letter, probabilities, latency, ...
  Values action;      // the chosen option's action, as sent to the env
  Values obs;         // observation after the step
  double reward = 0;  // the env's reward for the step
};

// A played episode, step by step.
struct Episode {
  uint64_t seed = 0;               // the reset seed
  Values reset_obs;                // the observation reset() gave
  std::vector<EpisodeStep> steps;  // one per decision
  double total_reward = 0;         // sum of the steps' rewards
  bool terminated = false;         // ended in a terminal state
  bool truncated = false;          // cut short (the env's TimeLimit or Task::max_steps)
};

// A judge's verdict on one episode (Task::judge) or on a built-in task's seeds.
struct Verdict {
  bool ok = false;   // the target was reached
  std::string text;  // one line: "balanced 500/500 steps", "reached the flag in 98 steps"
};

// One decision: status, letter and action for the current observation (see Mind::decide).
using DecideFn = std::function<Decided(Task& task, const Values& obs)>;
DecideFn mind_decider(Mind& mind);  // binds Mind::decide; the mind must outlive the function

// How run_episode plays and what it writes.
struct RunOptions {
  uint64_t seed = 0;       // the reset seed
  std::string gif_path;    // empty: no GIF
  std::string trace_path;  // empty: no trace
  int gif_delay_ms = 50;   // each GIF frame's delay
  bool progress = false;   // a single updating stderr line, only when stderr is a terminal
  int loop_repeats = 4;    // memory off: a state seen this often prints the looping hint
};

// What run_episode returns.
struct RunResult {
  Episode episode;                       // every step
  Verdict verdict;                       // the task's judge on it (no judge: ok, "played N steps")
  double p50_ms = 0, p95_ms = 0;         // decision latency
  int gif_frames = 0;                    // frames written (0: no GIF)
  std::optional<std::string> loop_hint;  // set when memory is off and states repeat
};

// reset(seed) → (decide → step → record) until terminated, truncated or task.max_steps.
// Clears the task's working memory first. Throws meadow::Error for a task without perceiver,
// an env error or an unwritable file.
RunResult run_episode(Task& task, const DecideFn& decide, const RunOptions& opts);

// A trace file: one JSON object per decision, one per line:
// {"step", "status", "letter", "probs": {letter: p}, "action", "act", "reward", "lat_ms"}
// ("act": the option's short label, or its text). Lines go to a temporary file beside the path
// (an exclusive new name, never a file that was there), renamed onto it by close(); a writer
// destroyed or discarded unclosed (a failed episode) leaves the path as it was. A device or
// pipe given as the path is written in place. run_episode and the Python package's runner both
// write through it.
class TraceWriter {
 public:
  explicit TraceWriter(const std::string& path);  // throws meadow::Error naming the file
  ~TraceWriter();
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;
  void write(const EpisodeStep& step, const std::string& act);  // one line
  void close();    // throws meadow::Error if the file could not be written
  void discard();  // leaves the path as it was

 private:
  struct File;
  std::string path_;
  std::unique_ptr<File> file_;
};

// Nearest-rank percentile (q in [0, 1]) of latencies; 0 for none.
double percentile(std::vector<double> values, double q);

}  // namespace meadow
