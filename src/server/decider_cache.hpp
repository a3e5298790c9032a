// Decision tables (rule + options) bound to the model, kept for reuse: a table's first
// decision encodes its constant prefix, later ones only the situation (meadow/decision.hpp).
// Bounded by the bytes of prefix K/V it holds, least recently used first out: clients send
// arbitrary rules, and an unbounded cache (as Mind keeps for a program's few tasks) would grow
// with every new one; a count bound alone would not do either, as one long rule on a 7B model
// holds megabytes (every prefix token keeps K and V of every layer).
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "meadow/decision.hpp"

namespace meadow::server {

class DeciderCache {
 public:
  DeciderCache(const model::Model& model, const Tokenizer& tok, diffusion::DecideOptions opts,
               size_t budget_bytes);

  // The table's decider, made (outside the lock: encoding a prefix is a model pass) when new.
  // A shared_ptr: an evicted decider lives on while a request still uses it. A table larger
  // than the whole budget is decided but not kept. Throws meadow::Error for an invalid table.
  std::shared_ptr<const diffusion::Decider> get(const std::string& rule,
                                                const std::vector<diffusion::Choice>& choices);
  size_t size() const;
  size_t bytes() const;

 private:
  struct Entry {
    std::string key;
    std::shared_ptr<const diffusion::Decider> decider;
    size_t bytes = 0;
  };

  const model::Model& model_;
  const Tokenizer& tok_;
  const diffusion::DecideOptions opts_;
  const size_t budget_;
  const size_t bytes_per_token_;  // K and V of every layer for one prefix token
  mutable std::mutex mu_;
  std::list<Entry> lru_;  // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
  size_t bytes_ = 0;
};

}  // namespace meadow::server
