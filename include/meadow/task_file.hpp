// A task written as a TOML file instead of code: the words (rule, options, exam), the
// environment, a judge target and a declarative perceiver.
//
//   meadow::BuiltinTask t = meadow::load_task_file("tasks/cartpole.toml");
//   mind.check(t.task);                                   // the exam, as for a built-in task
//   meadow::run_episode(t.task, meadow::mind_decider(mind), {.seed = t.seeds[0]});
//
// The perceiver is a pipeline of named steps: observation entries get names (`fields`),
// `values` are expressions over them (muparser syntax: + - * / ^, abs, sin, min, max,
// floor, ceil, mod, comparisons, && ||, a ? b : c), `words` turn a value into words by buckets, and
// `sentence` is a template whose {name} is a word (words may name words) or a number ({name} prints
// a whole number as one, {name:.2f} with two decimals). See docs/task-files.md for the format.
//
// Every mistake is an Error naming the place: "cart.toml:14:1: perceiver.words.lean: the
// buckets leave values >= 0.1 uncovered (end with a bucket without `below`/`at_most`/`is`)".
//
// Stability: everything here is stable (kept across releases; fields may be added) unless
// marked "Experimental:", which may change or go.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "meadow/task.hpp"
#include "meadow/tasks.hpp"

namespace meadow {

// One bucket of a word: a value matches the first bucket whose bound holds; a bucket with no
// bound matches every value (the last bucket must be one, so no value is left without words).
struct WordBucket {
  std::optional<double> below;    // value <  below
  std::optional<double> at_most;  // value <= at_most
  std::optional<double> is;       // value == is
  std::string say;                // may name other words: "leans slightly {side}"
};

// A word: a value put into words by buckets.
struct WordSpec {
  std::string name;                 // what {name} in the sentence (or another word) says
  std::string of;                   // the expression whose value picks the bucket
  std::vector<WordBucket> buckets;  // in order; the first that holds says the word
};

// The declarative perceiver: observation → named numbers → words → one sentence.
struct PerceiverSpec {
  std::vector<std::string> fields;                          // observation entries, in order
  std::vector<std::pair<std::string, std::string>> values;  // name = expression, in order
  std::vector<WordSpec> words;                              // in the file's order
  std::string sentence;  // "the pole is falling {falling} and {lean}"
};

// An episode passes when every condition given holds (none given: no verdict).
struct JudgeSpec {
  std::optional<bool> terminated;         // ended in the env's terminal state (or did not)
  std::optional<double> reward_at_least;  // total reward
  std::optional<int64_t> steps_at_least;  // episode length
  std::optional<int64_t> steps_at_most;
  std::string target;  // one line for listings: "the full 500 steps on each seed"

  bool has_conditions() const {  // at least one condition is given
    return terminated || reward_at_least || steps_at_least || steps_at_most;
  }
};

// A task file as data: the words, the env, the perceiver and the judge (Task's fields by the
// same names, meadow/task.hpp).
struct TaskSpec {
  std::string name;                                      // [task] name
  std::string summary;                                   // [task] summary: one line
  std::string rule;                                      // the rule sentence
  std::vector<Option> options;                           // action: one number or a list
  std::vector<ExamItem> exam;                            // Task::sanity
  std::string env_id;                                    // a registered env ("CartPole-v1")
  nlohmann::json env_kwargs = nlohmann::json::object();  // Gymnasium kwargs
  int64_t max_steps = 500;                               // Task::max_steps
  std::vector<uint64_t> seeds = {0};                     // the episodes' seeds; [0] is played
  std::optional<PerceiverSpec> perceiver;  // none: the task can be examined, not played
  JudgeSpec judge;                         // no conditions: no verdict
};

// Reads and checks a task file. `origin` names the text in messages (a path, "<request>").
// Throws meadow::Error "origin:line:column: field: what is wrong".
TaskSpec parse_task_spec(std::string_view toml, const std::string& origin);
TaskSpec read_task_spec(const std::string& path);

// The task a spec describes, its perceiver and judge compiled; throws meadow::Error.
BuiltinTask make_task(const TaskSpec& spec);
inline BuiltinTask load_task_file(const std::string& path) {
  return make_task(read_task_spec(path));
}

// The spec as a task file (TOML) that parse_task_spec reads back to an equal spec.
std::string task_spec_toml(const TaskSpec& spec);
// Writes it atomically (a failed write leaves any old file as it was).
void write_task_spec(const TaskSpec& spec, const std::string& path);

// The words of a task (rule, options, exam, env, max_steps) as a spec without perceiver, for
// saving a task whose perceiver is code.
TaskSpec spec_of_words(const Task& task);

// Experimental: the longest sentence the perceiver can say (every word at its longest, numbers as
// 24 characters): what `check` measures against the model's context.
std::string longest_sentence(const PerceiverSpec& perceiver);

}  // namespace meadow
