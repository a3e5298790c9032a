// A task: everything the mind needs to play one game, as plain data.
//
//   obs ─► perceive (numbers → one status sentence) ─► rule + lettered options ─► Mind
//       ─► letter ─► options[letter].action (the env action)
//
// A Task is an aggregate: fill its fields, then `validate(task)` (every Mind entry point
// validates too, so a malformed task never runs). Perceivers, memory keys and judges are plain
// std::function values, so a task is copyable and built-in tasks are just functions returning
// a Task.
//
// Working memory (`memory = true`): before each decision the mind computes
// `key = mem_key(obs)`, calls the perceiver (which may write "seen before" words using
// `task.seen(key)` / `task.visits(key)`: the counts BEFORE this step), then records the
// visit in `task.visited`. `forget()` clears it (the runner calls it at every reset). With
// `memory = false` nothing is recorded and `seen()` is always false.
//
// This header knows nothing of environments (the mind layer never includes envs): actions,
// observations and env kwargs use the same plain types as meadow/env.hpp (meadow/values.hpp's
// `Values`; kwargs are Gymnasium-style JSON).
//
// Stability: everything here is stable (kept across releases; fields may be added) unless
// marked "Experimental:", which may change or go.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "meadow/values.hpp"

namespace meadow {

struct Task;

// One multiple-choice option: the letter the model answers, the text the prompt shows, the
// env action it maps to, and a short label for traces and GIF captions.
struct Option {
  char letter = 'A';
  std::string text;  // option_text: "push the cart to the left"
  Values action;     // e.g. {0} for Discrete action 0
  std::string act;   // act_text: "left" (empty: traces show `text`)
};

// One exam item: a status sentence and the letter the rule demands for it.
struct ExamItem {
  std::string status;   // a situation sentence, as a perceiver would say it
  char expected = 'A';  // the letter the rule demands for it
};

// Perceiver: observation (+ the task, for memory words) → one status sentence. Constructible
// from a callable taking (const Values&) or (const Values&, const Task&).
class Perceiver {
 public:
  Perceiver() = default;
  template <class F>
  requires std::is_invocable_r_v<std::string, F, const Values&, const Task&> Perceiver(F f)
      : fn_(std::move(f)) {}
  template <class F>
  requires(!std::is_invocable_r_v<std::string, F, const Values&, const Task&> &&
           std::is_invocable_r_v<std::string, F, const Values&>) Perceiver(F f)
      : fn_([g = std::move(f)](const Values& obs, const Task&) { return g(obs); }) {}

  std::string operator()(const Values& obs, const Task& task) const { return fn_(obs, task); }
  explicit operator bool() const { return static_cast<bool>(fn_); }  // a function is set

 private:
  std::function<std::string(const Values&, const Task&)> fn_;
};

// A played episode and its verdict are the runner's (meadow/runner.hpp); a task only names
// the judge that reads one.
struct Episode;
struct Verdict;

struct Task {
  std::string name;     // "cartpole"
  std::string summary;  // one line for `meadow-mind list`

  // ① perception and ② the rule as multiple choice
  Perceiver perceive;           // observation → status sentence (empty: examined, not played)
  std::string rule;             // one sentence: "If the pole falls left, push left; ..."
  std::vector<Option> options;  // lettered A, B, ... in the order the prompt lists them

  // the exam (`Mind::check`): held-out status sentences with their expected letters
  std::vector<ExamItem> sanity;

  // working memory (see the header comment)
  bool memory = false;                                    // on: visits are counted per key
  std::function<std::string(const Values& obs)> mem_key;  // the key of an observation
  std::map<std::string, int64_t> visited;                 // key → visits recorded so far

  // the environment and the episode
  std::string env_id;                                    // "CartPole-v1"
  nlohmann::json env_kwargs = nlohmann::json::object();  // Gymnasium kwargs
  int64_t max_steps = 500;                               // the runner stops an episode here
  std::function<Verdict(const Episode&)> judge;          // may be empty: no verdict

  bool seen(const std::string& key) const { return visits(key) > 0; }
  int64_t visits(const std::string& key) const;  // visits of key recorded so far (0: never)
  void forget() { visited.clear(); }             // clears working memory

  const Option& option(char letter) const;  // throws meadow::Error if not an option
  const std::string& option_text(char letter) const { return option(letter).text; }
  // act text of the option, or its option text when act is empty
  const std::string& act_text(char letter) const;
};

// One step of perception with working memory (see the header comment): the memory key, the
// perceiver, then the visit recorded. Throws meadow::Error for a task without perceiver.
std::string perceive(Task& task, const Values& obs);

// Throws meadow::Error naming the task and the first problem: empty rule, no options, a letter
// outside 'A'..'Z', duplicate letters, an option with empty text or no action, an exam letter
// that is not an option, an empty exam sentence, memory on without mem_key, max_steps < 1.
// (A missing perceiver is allowed: such a task can be examined but not played.)
void validate(const Task& task);

}  // namespace meadow
