// Decision tables (rule + options) bound to the model, kept for reuse: a table's first
// decision encodes its constant prefix, later ones only the situation (meadow/runtime/decider.hpp).
// Bounded by the bytes of prefix K/V it holds (server/table_cache.hpp): a count bound alone
// would not do, as one long rule on a 7B model holds megabytes (every prefix token keeps K and
// V of every layer). A meadow-reader's tables are its readings (ReadingCache), bounded the
// same way by the literal states they keep.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "meadow/runtime/decider.hpp"
#include "meadow/runtime/reader.hpp"
#include "server/table_cache.hpp"

namespace meadow::server {

class DeciderCache {
 public:
  DeciderCache(const model::Model& model, const Tokenizer& tok, DecideOptions opts,
               size_t budget_bytes);

  // The table's decider, made when new; a table larger than the whole budget is decided but
  // not kept. Throws meadow::Error for an invalid table.
  std::shared_ptr<const decision::Decider> get(const std::string& rule,
                                               const std::vector<decision::Choice>& choices);
  size_t size() const { return cache_.size(); }
  size_t bytes() const { return cache_.bytes(); }

 private:
  const model::Model& model_;
  const Tokenizer& tok_;
  const DecideOptions opts_;
  const size_t bytes_per_token_;  // K and V of every layer for one prefix token
  TableCache<decision::Decider> cache_;
};

class ReadingCache {
 public:
  ReadingCache(const reader::Reader& reader, int threads, size_t budget_bytes);

  // The table's reading, read when new. Throws meadow::Error for an invalid table or a rule
  // the reader cannot decide from (the words at fault).
  std::shared_ptr<const reader::Reading> get(const std::string& rule,
                                             const std::vector<reader::Option>& options);
  size_t size() const { return cache_.size(); }
  size_t bytes() const { return cache_.bytes(); }

 private:
  const reader::Reader& reader_;
  const int threads_;
  TableCache<reader::Reading> cache_;
};

}  // namespace meadow::server
