// The decision pass: one forward of a rule table + situation, read as a multiple-choice answer
// (the record it fills, meadow::Decision, and its options, meadow::DecideOptions:
// meadow/decision.hpp). Every model family decides through it: bidirectional (dream, llada) and
// causal (qwen2, llama) alike. Generation is another layer (meadow/runtime/generate.hpp).
//
// The prompt and the reading of the answer are docs/prompt-contract.md, the one statement of
// the layout that the training corpus (train/corpus/layout.py) follows too: a [system, user]
// chat in the model's template, split where the situation starts into a PREFIX (system, rule,
// options: constant for a table) and a SUFFIX (situation, generation prompt), tokenized
// separately; then, for bidirectional archs, a slot of mask tokens whose first position holds
// the letter, or, for causal archs, the next-token row. User text is never a control token.
//
// Σ coherence of the step-0 draft. With the full-vocabulary logits at every answer position
// (the slot for bidirectional archs, the one next-token position for causal ones), the step-0
// draft is the argmax token at each position. coherence = mean over those positions of the
// draft token's full-vocabulary softmax probability, in (0, 1]. High = the model already
// "sees" a whole answer (letter, end of turn, end of text); low = an undecided draft. It costs
// one full-vocabulary output row per slot position; `want_coherence = false` skips it
// (coherence is then NaN) and computes only the letter columns.
//
// Prefix cache. A Decider built with `prefix_cache = true` encodes the prefix once (in the
// constructor) and runs only suffix + slot per decision. For bidirectional archs this means
// the prefix attends only to itself; `decide_uncached` computes the same mask in one pass
// (Mask::Prefix), so the two agree to float rounding. That is the attention the embedded
// model is trained with.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "meadow/decision.hpp"
#include "meadow/runtime/chat_template.hpp"
#include "meadow/runtime/model.hpp"
#include "meadow/runtime/prompt_contract.hpp"
#include "meadow/runtime/tokenizer.hpp"

namespace meadow::decision {

// One lettered option as the prompt shows it: "A) push the cart left".
struct Choice {
  char letter = 'A';
  std::string text;
};

// Prompt, before tokenization, as chat pieces (meadow/runtime/chat_template.hpp): template markup
// is special, the rule, options and situation are always plain text. `prefix` is constant for a
// table; `suffix` holds the situation and the assistant generation prompt.
struct PromptText {
  std::vector<ChatPiece> prefix;
  std::vector<ChatPiece> suffix;
  std::string prefix_text() const;  // joined, for display
  std::string suffix_text() const;
};

// Token ids of one decision: prefix ++ suffix ++ slot (slot empty for causal archs).
struct PromptIds {
  std::vector<int32_t> prefix;
  std::vector<int32_t> suffix;
  std::vector<int32_t> slot;
  // Index into the full sequence of the token whose prediction is the letter: the first slot
  // position (bidirectional) or one past the last prompt token (causal).
  int64_t answer_pos = 0;
  int64_t size() const { return int64_t(prefix.size() + suffix.size() + slot.size()); }
};

// Decision::entropy of a letter distribution: its entropy over log(options), 0 for one option.
double normalized_entropy(std::span<const double> probs);

// Prompt strings for a table and one situation in the layout of `contract` (its system message
// included; "" sends none). Throws meadow::Error for no choices.
PromptText prompt_text(const Tokenizer& tok, const PromptContract& contract, std::string_view rule,
                       const std::vector<Choice>& choices, std::string_view situation);

// The options block: the contract's option line ("{letter}) {text}\n") per choice.
std::string options_block(const std::vector<Choice>& choices, std::string_view option_layout);

// A rule table bound to a model: decides situations. Holds references to model and tokenizer
// (they must outlive it). decide() is const and thread-safe.
class Decider {
 public:
  // Validates the table (at least one choice, distinct letters, each letter one token of the
  // vocabulary, a mask token for bidirectional archs, slot 1..8) and, with opts.prefix_cache,
  // encodes the prefix. Throws meadow::Error with one clear line.
  Decider(const model::Model& model, const Tokenizer& tok, std::string rule,
          std::vector<Choice> choices, DecideOptions opts = {});

  Decider(Decider&&) noexcept;
  Decider& operator=(Decider&&) noexcept;
  ~Decider();

  // Throws meadow::ModelError when the model gives non-finite logits (check_finite below): a
  // broken model answers no letter.
  Decision decide(std::string_view situation) const;           // cached if opts.prefix_cache
  Decision decide_uncached(std::string_view situation) const;  // always one full pass
  // decide() into d, reusing d's storage and the decider's scratch memory: once warm, a
  // cached decision allocates nothing (bench/bench_alloc.cpp counts).
  void decide_into(std::string_view situation, Decision& d) const;
  // Several situations of this table in one forward pass (their tokens share every matmul;
  // cached or not as decide()). Each answer is the one decide() gives, to float rounding; each
  // lat_ms is the whole batch's (every answer is ready when the pass ends).
  std::vector<Decision> decide_batch(std::span<const std::string> situations) const;

  PromptIds prompt_ids(std::string_view situation) const;
  const std::vector<int32_t>& letter_ids() const;
  // Every token read for the letters, and the choice each belongs to (causal archs read the
  // letter with and without a leading space when both are single tokens).
  const std::vector<int32_t>& read_ids() const;
  const std::vector<size_t>& read_owner() const;
  const std::string& rule() const;
  const std::vector<Choice>& choices() const;
  const DecideOptions& options() const;
  // The prompt layout and system message the decisions use (the model's contract).
  const PromptContract& contract() const;
  bool cached() const;  // the prefix's K/V are encoded (DecideOptions::prefix_cache)

 private:
  struct Impl;  // the table's token ids, the suffix frame, the prefix cache, the scratch pool
  std::unique_ptr<Impl> impl_;
};

// The step-0 draft of a generation prompt: one pass over the prompt and an all-mask slot of
// `length` tokens (causal archs: the single next token), the prefix attending to itself only as
// in a cached decision. Per position the argmax token and its probability; coherence Σ = their
// mean, as Decision::coherence. Throws meadow::Error for an empty prompt, length < 1, no mask
// token or a slot over the context; meadow::ModelError for non-finite logits.
struct Draft {
  std::vector<int32_t> tokens;
  std::string text;                // decoded, special tokens skipped
  std::vector<double> confidence;  // per position
  double coherence = 0;
  double ms = 0;
};
Draft draft(const model::Model& model, const Tokenizer& tok, std::span<const int32_t> prompt,
            int length, int threads = 1);

// The one check of a model's numbers, made wherever logits are read (the decision's letters,
// the draft, generation and infill picks, choice scoring): a value that is NaN or Inf means
// the model is broken (NaN weights, an overflow), so no token, letter or score may come of
// it. Throws meadow::ModelError "WHAT: the model FILE gives non-finite logits (NaN or Inf)".
void check_finite(const model::Model& model, std::span<const float> logits, std::string_view what);
void check_finite(const model::Model& model, std::span<const double> logits, std::string_view what);

}  // namespace meadow::decision
