// meadow-reader: a rule read in parts (DESIGN.md, "Reading in parts"). A BERT-family encoder
// (meadow/runtime/encoder.hpp) with small heads stored beside it as `reader.*` tensors, which
// train/reader/export.py writes; the semantics are train/reader/decide.py's and README.md's
// (the late judge), reproduced exactly (tests/reference/reader_reference_test.cpp):
//
//   read(rule, options)     once per rule: one pass per option over
//                           [CLS] "{letter}: {text}" [SEP] rule [SEP] tags each rule token
//                           (O, B, I, AND, OR, PRON, ANTE) and gives P(this option is the
//                           default); the tags decode to the option's clauses, each a list of
//                           literals (the rule's own words, a pronoun replaced by its
//                           antecedent) joined by "and" or "or". Each literal is then encoded
//                           alone and what the judge needs of it is kept with the reading.
//   decide(reading, state)  per decision: the situation is encoded once; each literal's tokens
//                           look at it (one cross-attention layer), a small MLP gives
//                           P(literal holds), a numeric literal is compared where its numbers
//                           parse; the literals combine into per-letter probabilities.
//
// A reading that cannot decide (no option has a condition and there is no default, or the rule
// is longer than the reader reads) says so with the words at fault (Reading::unreadable), and
// decide() on it throws meadow::Error rather than guess.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "meadow/runtime/encoder.hpp"
#include "meadow/runtime/tokenizer.hpp"

namespace meadow::reader {

struct Option {
  char letter = 'A';
  std::string text;
};

// [begin, end) bytes of the rule and the words there.
struct Span {
  uint32_t begin = 0, end = 0;
  std::string text;
};

enum class Join { None, And, Or };
const char* join_name(Join j);  // "", "and", "or"

// A literal of a clause: what the judge is asked about.
struct Literal {
  std::string text;  // the rule's words; a pronoun's literal starts with its antecedent instead
  Span words;        // the rule's bytes its tokens cover (the pronoun included)
  std::optional<Span> antecedent;  // the words a pronoun stands for
  double tag_p = 1;   // the least probable of its tokens' tags: how sure the reading is of it
  size_t judged = 0;  // its entry in Reading::judged
};

struct Clause {
  std::vector<Literal> literals;
  Join join = Join::None;  // between the literals (the first join the tags named)
  double link_p = 1;       // a reading per rule: how sure the link to its option is (else 1)
};

struct OptionReading {
  char letter = 'A';
  std::string text;
  std::vector<Clause> clauses;  // any one of them chooses the option
  double p_default = 0;         // P(this option is the rule's default)
};

// What the late judge keeps of one distinct literal text, computed once with the reading.
struct JudgedLiteral {
  std::string text;
  model::Hidden states;               // of [CLS] text [SEP]
  std::vector<float> mean;            // u: their mean
  std::vector<float> query;           // the look's query projection of the states [tokens, n_embd]
  std::vector<float> value_w;         // the value head folded with u: a dot with a situation token
  std::array<double, 6> op{};         // P(none), P(>), P(>=), P(<), P(<=), P(in)
  std::optional<std::string> t1, t2;  // the threshold runs of the text
};

struct Reading {
  std::string rule;
  std::vector<OptionReading> options;
  std::vector<JudgedLiteral> judged;
  std::vector<Span> unclaimed;  // runs of rule words no option's tags claimed
  std::optional<Span> unread;   // the rule's words past what the reader reads (too long)
  uint64_t reader_id = 0;       // which Reader made it (its literals' states are that model's)

  // The option with the highest P(default) if that is at least 0.5.
  std::optional<size_t> default_index() const;
  // Each literal's text in order (options, clauses, literals): Decision::literal_p's order.
  std::vector<std::string> literal_texts() const;
  // Empty when decide() can use the reading; otherwise why not, naming the words.
  std::string unreadable() const;
  // Options that no condition names and that are not the default: they can never be chosen.
  std::vector<char> unreachable() const;
  // Literals whose words or whose option the reader was not sure of (a tag or link under 0.5):
  // one line each naming the words, for `check` to show before a user trusts the reading.
  std::vector<std::string> unsure() const;
};

struct Decision {
  char letter = 'A';
  std::vector<std::pair<char, double>> probs;  // in the options' order
  double margin = 0;                           // best minus second-best probability
  std::vector<double> literal_p;               // P(holds) of each literal, in literal_texts() order
  std::vector<double> option_p;  // P(the option's condition holds): its most likely clause
  std::vector<double> clause_p;  // P(each clause holds), in the options' / clauses' order
  double lat_ms = 0;
};

// A clause as one line: its literals quoted, joined by "and" / "or".
std::string clause_text(const Clause& clause);

// How the rule was read, one line per option ("  C \"pour the tea\" if \"the kettle whistles\"",
// "  B \"wait\" by default"), then the words no option claimed and the literals the reader was
// unsure of; with a decision, each literal's P(holds) after it. What `check` and `decide` print.
std::string describe(const Reading& reading, const Decision* decision = nullptr);

struct RunOptions {
  int threads = 1;                        // the encoder's (at most model::kMaxThreads)
  model::Workspace* workspace = nullptr;  // reused across calls, one call at a time
};

struct Heads;  // private (src/reader/heads.hpp)

class Reader {
 public:
  // Opens a reader GGUF. Throws meadow::Error "PATH: problem": not a bert file, or one without
  // the reader's heads and metadata (naming what is missing), or heads of the wrong shape.
  static Reader open(const std::string& path);
  explicit Reader(model::Encoder encoder);
  Reader(Reader&&) noexcept;
  Reader& operator=(Reader&&) noexcept;
  ~Reader();

  // Whether the file has the reader's heads (a bert file that is not a reader has none).
  static bool is_reader(const gguf::File& file);

  // Throws meadow::Error for an empty rule, no options, a letter given twice, or an option
  // text longer than the reader reads. A rule the reader cannot split is not an error here:
  // the Reading says so (unreadable()).
  Reading read(std::string_view rule, const std::vector<Option>& options,
               const RunOptions& opts = {}) const;
  // Throws meadow::Error when the reading is unreadable, the situation is empty or longer than
  // the reader reads, or the reading came from another reader.
  Decision decide(const Reading& reading, std::string_view state,
                  const RunOptions& opts = {}) const;

  const model::Encoder& encoder() const { return encoder_; }
  const Tokenizer& tokenizer() const { return tokenizer_; }
  int64_t max_tokens() const;   // the longest input (tokens, [CLS] and [SEP] included)
  bool reads_per_rule() const;  // one pass per rule (reader.reading "rule"), else per option

 private:
  model::Encoder encoder_;
  Tokenizer tokenizer_;
  std::unique_ptr<Heads> heads_;
  uint64_t id_ = 0;  // Reading::reader_id of the readings it makes
};

}  // namespace meadow::reader
