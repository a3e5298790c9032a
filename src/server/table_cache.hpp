// A byte-bounded LRU of what the server makes once per decision table (rule + options) and
// reuses: a decoder's cached prefix (server/decider_cache.hpp) or a reader's reading. Clients
// send arbitrary rules, so what it holds is bounded by bytes, least recently used out first.
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

namespace meadow::server {

template <class T>
class TableCache {
 public:
  explicit TableCache(size_t budget_bytes) : budget_(budget_bytes) {}

  // The entry under key, or make()'s (outside the lock: making one is a model pass), which
  // returns {shared_ptr<const T>, bytes it holds}. A shared_ptr: an evicted entry lives on
  // while a request still uses it. One larger than the whole budget is returned, not kept.
  template <class Make>
  std::shared_ptr<const T> get(const std::string& key, Make&& make) {
    {
      std::lock_guard lock(mu_);
      if (auto it = index_.find(key); it != index_.end()) {
        lru_.splice(lru_.begin(), lru_, it->second);
        return it->second->value;
      }
    }
    auto [made, bytes] = make();
    bytes += key.size();
    if (bytes > budget_) return made;
    std::lock_guard lock(mu_);
    if (auto it = index_.find(key); it != index_.end()) return it->second->value;  // raced
    lru_.push_front({key, made, bytes});
    index_[key] = lru_.begin();
    bytes_ += bytes;
    while (bytes_ > budget_) {
      bytes_ -= lru_.back().bytes;
      index_.erase(lru_.back().key);
      lru_.pop_back();
    }
    return made;
  }

  size_t size() const {
    std::lock_guard lock(mu_);
    return lru_.size();
  }
  size_t bytes() const {
    std::lock_guard lock(mu_);
    return bytes_;
  }

 private:
  struct Entry {
    std::string key;
    std::shared_ptr<const T> value;
    size_t bytes = 0;
  };
  const size_t budget_;
  mutable std::mutex mu_;
  std::list<Entry> lru_;  // most recently used first
  std::unordered_map<std::string, typename std::list<Entry>::iterator> index_;
  size_t bytes_ = 0;
};

// A table's key: length-prefixed texts, so no option text can forge another table's.
template <class Options>
std::string table_key(const std::string& rule, const Options& options) {
  std::string key = std::to_string(rule.size()) + ':' + rule;
  for (const auto& o : options) key += o.letter + std::to_string(o.text.size()) + ':' + o.text;
  return key;
}

}  // namespace meadow::server
