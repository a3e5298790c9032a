// TEST-ONLY reference reader. It picks the option letter by literally matching a status
// sentence against the rule's conditions: "If X, choose L." / "If X, <option text>." /
// "Otherwise choose L." / a relational sentence ("... the same direction the N is moving ...",
// "Go where the N is heading", "... toward the N ...") answered by the option whose text holds
// the direction word the status gives for N. That is the skill the embedded model is trained
// for (train/corpus), done by string matching.
//
// What it proves: the built-in tasks' WORDS suffice — perceiver + rule + options reach each
// target when read correctly. It proves nothing about the model; the product never uses it
// (the runner is always bound to Mind::decide outside tests).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "meadow/mind.hpp"
#include "meadow/task.hpp"
#include "meadow/tasks.hpp"

namespace meadow::testing {

class ReferenceReader {
 public:
  // Throws std::runtime_error for a rule sentence it cannot read.
  explicit ReferenceReader(const Task& task);
  // The letter the rule gives for the status; throws std::runtime_error when no condition
  // or more than one matches.
  char read(const std::string& status) const;

 private:
  struct Condition {
    std::string text;
    char letter;
  };
  enum class Relation { None, Same, Toward };
  std::vector<Condition> conds_;
  std::optional<char> otherwise_;
  Relation relation_ = Relation::None;
  std::string noun_;
  std::vector<Option> options_;
};

// A DecideFn for run_episode: the working-memory protocol of Mind::decide (meadow/task.hpp:
// key, perceive, record the visit), then the reader's letter with probability 1.
DecideFn reader_decider();

}  // namespace meadow::testing
