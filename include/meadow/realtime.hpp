// Real-time play: the game clock does not wait for the mind.
//
//   meadow::BuiltinTask bt = meadow::builtin_task("parkour");
//   auto r = meadow::run_realtime(bt.task, meadow::mind_decider(mind), {.seed = 0});
//   std::puts(r.verdict.text.c_str());   // "cleared 6/6 obstacles (seed 0)"
//
// The game loop runs in its own thread on std::chrono::steady_clock: it advances the world by
// the seconds that really passed, then applies whatever answer has arrived. The mind decides in
// the calling thread on the latest state it can read, back to back. An answer is in time when
// the question it answers (the env's challenge: this wall, this shape) is still open when it
// reaches the game; otherwise it is late and dropped: the wall has already hit, the window has
// closed. Nothing is precomputed: every answer is one call of `decide` on a state the game had
// published.
//
// Simulated time (RealtimeOptions::latency set): no threads and no clock. Each decision takes
// the game seconds the latency function says, during which the world moves on, so a test can
// make a mind slow or fast independent of the machine's speed.
//
// Stability: everything here is stable (kept across releases; fields may be added) unless
// marked "Experimental:", which may change or go.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "meadow/env.hpp"
#include "meadow/mind.hpp"
#include "meadow/runner.hpp"
#include "meadow/scene.hpp"
#include "meadow/task.hpp"
#include "meadow/tasks.hpp"

namespace meadow {

// When one decision was read and answered, on the game clock. The decision itself (status,
// letter, probabilities, latency) and its action are the episode step of the same index.
struct TimedDecision {
  int64_t challenge = 0;  // the question the state posed (meadow's TimedEnv challenge id)
  double read_s = 0;      // game time of the state the mind read
  double answer_s = 0;    // game time at which the answer reached the game
  bool in_time = false;   // applied (its question still open), else late and dropped
};

// How run_realtime plays and what it writes.
struct RealtimeOptions {
  uint64_t seed = 0;  // the reset seed
  std::string
      gif_path;  // empty: no GIF; frame delays are the game (= wall-clock) time between frames
  std::string trace_path;  // empty: no trace; one JSON line per decision
  // Set: simulated time, each decision taking latency(info) game seconds (> 0).
  std::function<double(const Decision&)> latency;
  double frame_s = 0.05;      // a GIF frame at least this often, and one at every event
  double time_limit_s = 120;  // game seconds after which the run stops (a safety net)
  nlohmann::json env_kwargs;  // null: the task's; else these replace them (e.g. a window)
};

// What run_realtime returns.
struct RealtimeResult {
  Episode episode;                       // steps: one per decision; total_reward: all the game gave
  std::vector<TimedDecision> decisions;  // decisions[i] is when episode.steps[i] was decided
  Verdict verdict;
  int64_t late = 0;               // decisions that arrived after their question closed
  double game_s = 0;              // game time the run took
  double p50_ms = 0, p95_ms = 0;  // decision latency
  int gif_frames = 0;             // frames written (0: no GIF)
  bool simulated = false;         // played in simulated time (RealtimeOptions::latency)
};

// Experimental: the full-generation contender: an agent that writes a whole sentence before it
// acts. The
// prompt is the chat template of (system: the rule and the lettered options; user: the status
// sentence and "which option, in one sentence"); the model generates up to max_new_tokens
// (token by token for causal models such as SmolLM2, block diffusion for dream/llada; see
// meadow/runtime/generate.hpp), and parse_answer maps the text to an option. lat_ms is the whole
// perceive + prompt + generation time. The model and tokenizer must outlive the function.
DecideFn generating_decider(const model::Model& model, const Tokenizer& tok, int max_new_tokens,
                            int threads);

// Experimental: the option a written answer names: an explicit letter first ("B)", "option B",
// "choose B", "B." or a lone "B"), else the option whose trace label (Option::act, e.g. "left") or
// text comes first in the answer (case-insensitive, whole words), else the idle option (act "stay",
// "wait" or "none"), else the first option.
char parse_answer(const Task& task, std::string_view text);

// Plays the task's env (a real-time game: Parkour-v0, Shapes-v0) from reset(seed) until the
// episode ends. Throws meadow::Error for a task without perceiver, an env that is not a
// real-time game, a latency that is not a positive finite number, or an unwritable file.
RealtimeResult run_realtime(Task& task, const DecideFn& decide, const RealtimeOptions& opts);

// Experimental: a real-time game of one's own (the Python package's games are these): a world that
// is a function of game time and poses one question at a time. The runner calls it from one thread
// at a time.
struct RealtimeWorld {
  virtual ~RealtimeWorld() = default;
  virtual Values reset(uint64_t seed) = 0;  // the first observation
  virtual double clock() const = 0;         // game seconds since reset
  // Moves the world forward by `seconds` (>= 0): reward and termination of that time.
  virtual StepResult advance(double seconds) = 0;
  virtual StepResult act(const Values& action) = 0;  // at the present instant; no time passes
  // The open question's id, changed whenever it is resolved or replaced; -1 once over. An
  // answer is in time when the id it was read under is still the open one.
  virtual int64_t challenge() const = 0;
  virtual Values observe() const = 0;
  // A picture of the present instant for the GIF, drawn when the GIF is written (so that
  // drawing costs the game no time); an empty function: no frame.
  virtual std::function<Frame()> picture() const = 0;
};

// The same runner on a world of one's own (the task's env_id is not used). Throws as above.
RealtimeResult run_realtime(Task& task, RealtimeWorld& world, const DecideFn& decide,
                            const RealtimeOptions& opts);

}  // namespace meadow
