// The decision from the literals' probabilities (decide.py's combine): a clause of literals
// joined by "and" holds with the product of their probabilities, by "or" with one minus the
// product of their complements; an option's condition holds as its most likely clause.
// P(no condition holds) is the product of the non-default options' complements: with a
// default, the default gets it and the others share the rest in proportion; without one, the
// options' probabilities are normalized.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "meadow/runtime/reader.hpp"

namespace meadow::reader {

struct Combined {
  std::vector<double> probs;     // per option, in order
  std::vector<double> option_p;  // per option: its condition's probability (best clause)
  std::vector<double> clause_p;  // per clause, in the options' / clauses' order
};

// literal_p: one probability per literal, in the options' / clauses' / literals' order. Throws
// meadow::Error when there are fewer than the options' literals.
Combined combine(const std::vector<OptionReading>& options, std::optional<size_t> default_index,
                 std::span<const double> literal_p);

// The first most likely option (Python's max over the options in order).
size_t best_option(const std::vector<double>& probs);

}  // namespace meadow::reader
