// Tags to text: decide.py's literals_from_tags, group_clauses and tagged_run, over byte offsets
// of the text (Tokenizer::encode_offsets) where Python has code point offsets: the same words
// come out. Both readings decode this way: the pass per option (data.TAGS in the rule's
// segment 1, antecedents a tag of their own) and the pass per rule (data.RULE_TAGS in segment
// 0, antecedents a flag of their own, since they may sit inside an earlier literal).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "meadow/runtime/reader.hpp"
#include "meadow/runtime/tokenizer.hpp"

namespace meadow::reader {

// Where each meaning sits in the file's tag list (reader.tags); the defaults are data.TAGS.
// The pass per rule has no ANTE tag (ante = -1): its antecedents are flags.
struct TagIds {
  int o = 0, b = 1, i = 2, and_ = 3, or_ = 4, pron = 5, ante = 6;
};

// One token of a pass: its bytes of its own segment's text, its segment (seq: -1 for the
// [CLS] / [SEP] the template adds, else 0 or 1 as Hugging Face's sequence_ids), its tag, that
// tag's probability, and whether it is part of an antecedent.
struct TaggedToken {
  TokenOffset off;
  int seq = -1;
  int tag = 0;
  double p = 1;
  bool ante = false;
};

// A literal as the tags give it: the literal (Literal::judged left 0), its tokens (indices into
// the pass), and the join seen since the previous literal.
struct LiteralRun {
  Literal literal;
  std::vector<size_t> tokens;
  Join join = Join::None;
};

// decide.py's literals_from_tags: runs of B I... (or PRON I...) tokens of `segment` are
// literals; a PRON literal is judged with the nearest antecedent run before it in place of the
// pronoun; a token of another segment, or an empty one, ends the literal it would continue.
std::vector<LiteralRun> literals_from_tags(std::string_view rule,
                                           std::span<const TaggedToken> tokens, const TagIds& ids,
                                           int segment);

// decide.py's group_clauses: two literals with an and/or between them form one clause (the
// first join named is the clause's), otherwise separate clauses. With `members`, also each
// clause's literal indices.
std::vector<Clause> group_clauses(std::vector<LiteralRun> lits,
                                  std::vector<std::vector<size_t>>* members = nullptr);

// The clauses of one option's pass (decide.py's clauses_from_tags): its rule segment (1).
std::vector<Clause> clauses_from_tags(std::string_view rule, std::span<const TaggedToken> tokens,
                                      const TagIds& ids);

// The characters of the first run of tokens of segment `seq` tagged `want` (decide.py's
// tagged_run); tokens of other segments, and empty ones, neither extend nor end a run.
std::optional<std::string> tagged_run(std::string_view text, std::span<const TaggedToken> tokens,
                                      int want, int seq);

// Runs of consecutive rule tokens with claimed[k] false, as spans of the rule.
std::vector<Span> unclaimed_runs(std::string_view rule, std::span<const TokenOffset> rule_tokens,
                                 const std::vector<bool>& claimed);

}  // namespace meadow::reader
