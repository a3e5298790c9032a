// What a decision is and how it is made: the record every decision returns (meadow::Decision)
// and the options of the decision pass (meadow::DecideOptions).
//
// A decision reads a task's rule, its lettered options and one situation sentence in one
// forward pass of the model and answers the letter of the option to take, with the
// probability of every letter. meadow::Mind (meadow/mind.hpp) makes decisions; the episode
// runner (meadow/runner.hpp) keeps each one's record whole in its EpisodeStep; the trace file
// is written from it. The machinery (the Decider, the prompt's layout and token ids, the prefix
// cache) is runtime: meadow/runtime/decider.hpp.
//
// Stability: what is not marked is stable (kept from release to release; fields may be added).
// "Experimental:" marks what may change or go.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace meadow {

// How a decision is made: the one definition of these options. meadow::Mind takes them as
// MindOptions::decide, the Python package's MeadowMind(**options) sets them by name, the
// command line from its flags.
struct DecideOptions {
  // 0 = auto: a Decider alone uses one thread; a Mind chooses by the model's size (at most 2
  // for small models and readers, else every hardware thread) and reports the number it chose.
  int threads = 0;
  int answer_slot = 3;         // mask tokens after the suffix (bidirectional); contract: 1..3
  bool prefix_cache = true;    // encode the prefix once and reuse its K/V (false: every pass whole)
  bool want_coherence = true;  // Σ coherence of the step-0 draft (one extra output row/slot)
  // The system message ("" sends none). Unset: the model's own (its prompt contract,
  // docs/prompt-contract.md), which is what it was trained to read.
  std::optional<std::string> system;
  // Experimental: early exit (0: off): after each layer the letters are read through the final
  // norm and head, and the pass stops at the first layer where the margin (top-1 minus top-2
  // letter probability) reaches this. Decision::layers says where it stopped. It costs accuracy
  // (the layers were not trained for it): docs/measurements.md states how much per margin.
  double exit_margin = 0;
  // Where the model multiplies in integers (model::Arithmetic::Auto on quantized weights at
  // least 512 wide: SmolLM2, 7B-class models), a
  // decision whose margin is below this is decided again in float, and the prefix is encoded in
  // float, so integer rounding cannot flip a near tie: the answer is the float path's whenever
  // rounding moves the letter probabilities by less than half of this (on SmolLM2's exams,
  // integer arithmetic moved them by at most 0.04). 0: never re-check; 1: always.
  double float_recheck = 0.1;
};

// Throws Error when an option is out of range (threads < 0, a margin outside [0, 1]); the
// answer slot is checked against the model by the Decider.
void check_options(const DecideOptions& o);

// A reader that reads in parts (meadow/runtime/reader.hpp) decides from conditions: each one it
// read, the option it chooses and how likely it holds in the situation decided.
struct ConditionP {
  char letter = 0;   // the option it chooses
  std::string text;  // as read: the rule's words, quoted, joined by "and" / "or"
  double p = 0;      // P(it holds in this situation)
};

// One decision, the one record of it: the decision pass fills it, Mind returns it, the runner
// keeps it in each EpisodeStep and the trace writes it.
struct Decision {
  std::string status;                          // the situation decided (a task's perceiver output)
  char letter = 0;                             // the option chosen: the most probable letter
  std::vector<std::pair<char, double>> probs;  // (letter, probability) in option order; sums to 1
  double margin = 0;  // top-1 minus top-2 probability (1 when there is one option)
  // Entropy of the letter distribution over log(options): 0 = certain, 1 = uniform (0 when
  // there is one option). With margin, the confidence signal a causal reader has (its one
  // answer position makes the step-0 draft a single token).
  double entropy = 0;
  // Σ coherence of the step-0 draft: the mean, over the answer positions, of the argmax token's
  // full-vocabulary probability, in (0, 1]. High = the model already "sees" a whole answer;
  // low = an undecided draft. NaN when not computed (DecideOptions::want_coherence = false, or
  // a meadow-reader, which has no answer slot).
  double coherence = 0;
  // Experimental: the decoded step-0 draft of the answer positions (when coherence is on).
  std::string draft;
  // Wall time of tokenize + forward + softmax, in milliseconds (not the table's one-time
  // prefix encoding); in a batch, the whole batch's.
  double lat_ms = 0;
  // Experimental: layers the pass ran (fewer than the model's after an early exit).
  int64_t layers = 0;
  // Why the letter was chosen, for a reader that reads in parts: every condition it read, in
  // the options' order, with P(holds). Empty for a model that answers the letter directly.
  std::vector<ConditionP> conditions;
  double prob(char letter) const;  // its probability; 0 for a letter that is not an option
};

}  // namespace meadow
