// Decision tables (rule + options) bound to the model, kept for reuse: a table's first
// decision encodes its constant prefix, later ones only the situation (meadow/decision.hpp).
// Bounded, least recently used first out: clients send arbitrary rules, and an unbounded
// cache (as Mind keeps for a program's few tasks) would grow with every new one.
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
               size_t capacity);

  // The table's decider, made (outside the lock: encoding a prefix is a model pass) when new.
  // A shared_ptr: an evicted decider lives on while a request still uses it. Throws
  // meadow::Error for an invalid table.
  std::shared_ptr<const diffusion::Decider> get(const std::string& rule,
                                                const std::vector<diffusion::Choice>& choices);
  size_t size() const;

 private:
  const model::Model& model_;
  const Tokenizer& tok_;
  const diffusion::DecideOptions opts_;
  const size_t capacity_;
  mutable std::mutex mu_;
  using Entry = std::pair<std::string, std::shared_ptr<const diffusion::Decider>>;
  std::list<Entry> lru_;  // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
};

}  // namespace meadow::server
