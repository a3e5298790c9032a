// The decision pass: one forward of a rule table + situation, read as a multiple-choice answer.
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

#include "meadow/chat_template.hpp"
#include "meadow/model.hpp"
#include "meadow/tokenizer.hpp"

namespace meadow::diffusion {

// One lettered option as the prompt shows it: "A) push the cart left".
struct Choice {
  char letter = 'A';
  std::string text;
};

// train/corpus/templates.py DEFAULT_SYSTEM: the system message the embedded model reads.
inline constexpr const char* kDefaultSystem =
    "Read the rule and the situation, then answer with the letter of the option to take.";

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
  std::string system = kDefaultSystem;
  // Early exit (0: off): after each layer the letters are read through the final norm and
  // head, and the pass stops at the first layer where the margin (top-1 minus top-2 letter
  // probability) reaches this. Decision::layers says where it stopped. It costs accuracy (the
  // layers were not trained for it): docs/measurements.md states how much per margin.
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

// Prompt, before tokenization, as chat pieces (meadow/chat_template.hpp): template markup is
// special, the rule, options and situation are always plain text. `prefix` is constant for a
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

// A reader that reads in parts (meadow/reader.hpp) decides from conditions: each one it read,
// the option it chooses and how likely it holds in the situation decided.
struct ConditionP {
  char letter = 0;   // the option it chooses
  std::string text;  // as read: the rule's words, quoted, joined by "and" / "or"
  double p = 0;      // P(it holds in this situation)
};

// One decision, the one record of it: the Decider fills it, Mind returns it (as
// meadow::DecisionInfo), the runner keeps it in each EpisodeStep and the trace writes it.
struct Decision {
  std::string status;  // the situation decided (a task's perceiver output)
  char letter = 0;
  std::vector<std::pair<char, double>> probs;  // in option order; sums to 1
  double margin = 0;  // top-1 minus top-2 probability (1 when there is one option)
  // Entropy of the letter distribution over log(options): 0 = certain, 1 = uniform (0 when
  // there is one option). With margin, the confidence signal a causal reader has (its one
  // answer position makes the step-0 draft a single token).
  double entropy = 0;
  double coherence = 0;  // see the header comment; NaN when not computed
  std::string draft;     // decoded step-0 draft of the answer positions (when coherence is on)
  double lat_ms = 0;     // wall time of tokenize + forward + softmax
  int64_t layers = 0;    // layers the pass ran (fewer than the model's after an early exit)
  // Why the letter was chosen, for a reader that reads in parts: every condition it read, in
  // the options' order, with P(holds). Empty for a model that answers the letter directly.
  std::vector<ConditionP> conditions;
  double prob(char letter) const;  // 0 for a letter that is not an option
};

// Decision::entropy of a letter distribution: its entropy over log(options), 0 for one option.
double normalized_entropy(std::span<const double> probs);

// Prompt strings for a table and one situation. Throws meadow::Error for no choices.
PromptText prompt_text(const Tokenizer& tok, std::string_view system, std::string_view rule,
                       const std::vector<Choice>& choices, std::string_view situation);

// The options block exactly as the corpus writes it: "A) text\n" per choice.
std::string options_block(const std::vector<Choice>& choices);

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

  // Throws meadow::ModelError when the model gives non-finite logits (check_finite in
  // meadow/generate.hpp): a broken model answers no letter.
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
  const std::vector<int32_t>& letter_ids() const { return letter_ids_; }
  // Every token read for the letters, and the choice each belongs to (causal archs read the
  // letter with and without a leading space when both are single tokens).
  const std::vector<int32_t>& read_ids() const { return read_ids_; }
  const std::vector<size_t>& read_owner() const { return read_owner_; }
  const std::string& rule() const { return rule_; }
  const std::vector<Choice>& choices() const { return choices_; }
  const DecideOptions& options() const { return opts_; }
  bool cached() const { return !cache_.tokens.empty(); }

 private:
  struct Scratch;      // one decision's reusable memory (decider.cpp)
  struct ScratchPool;  // spare Scratch, one per concurrent caller
  class ScratchLease;
  std::unique_ptr<Scratch> new_scratch() const;  // with this decider's pass options

  void run(std::string_view situation, bool use_cache, Decision& d) const;
  // Decides again in float when the integer pass's margin is under opts_.float_recheck.
  void recheck(std::string_view situation, bool use_cache, Scratch& s, Decision& d) const;
  void sequence(std::string_view situation, bool use_cache, Scratch& s, model::Sequence& seq) const;
  void forward(const std::vector<model::Sequence>& batch, bool use_cache, Scratch& s) const;
  void read(const model::Logits& logits, std::string_view situation, Scratch& s, Decision& d) const;
  void letter_probs(const float* row, bool full_vocab, Scratch& s) const;  // into s.pr
  void build_suffix_frame(const std::vector<ChatPiece>& suffix);
  // The suffix ids into ids; checks the context.
  void suffix_ids(std::string_view situation, Scratch& s, std::vector<int32_t>& ids) const;

  // Where the situation goes in the suffix (see build_suffix_frame): the pieces before and
  // after the one that holds it, tokenized once, and that piece's text around it.
  struct SuffixFrame {
    bool ok = false;
    std::vector<int32_t> lead, tail;
    std::string before, after;
  };
  static constexpr const char* kMark = "\x01";

  const model::Model* model_;
  const Tokenizer* tok_;
  std::string rule_;
  std::vector<Choice> choices_;
  DecideOptions opts_;
  bool integers_ = false;  // the decision pass multiplies in integers (Arithmetic::Auto)
  std::vector<int32_t> prefix_ids_;
  std::vector<int32_t> slot_ids_;  // the answer slot's mask tokens (empty for causal archs)
  SuffixFrame frame_;
  std::vector<int32_t> letter_ids_;  // per choice: the letter's bare token
  std::vector<int32_t> read_ids_;    // every letter form read (causal: "A" and " A")
  std::vector<size_t> read_owner_;   // choice index of each read id
  model::PrefixCache cache_;
  std::unique_ptr<ScratchPool> scratch_;
};

}  // namespace meadow::diffusion
