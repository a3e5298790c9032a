// The bounded LRU of decision tables (server/decider_cache.hpp).
#include "server/decider_cache.hpp"

namespace meadow::server {

DeciderCache::DeciderCache(const model::Model& model, const Tokenizer& tok,
                           diffusion::DecideOptions opts, size_t capacity)
    : model_(model), tok_(tok), opts_(std::move(opts)), capacity_(capacity ? capacity : 1) {}

std::shared_ptr<const diffusion::Decider> DeciderCache::get(
    const std::string& rule, const std::vector<diffusion::Choice>& choices) {
  // Length-prefixed texts, so no option text can forge another table's key (as Mind does).
  std::string key = std::to_string(rule.size()) + ':' + rule;
  for (const auto& c : choices) key += c.letter + std::to_string(c.text.size()) + ':' + c.text;
  {
    std::lock_guard lock(mu_);
    if (auto it = index_.find(key); it != index_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second);
      return it->second->second;
    }
  }
  auto made = std::make_shared<const diffusion::Decider>(model_, tok_, rule, choices, opts_);
  std::lock_guard lock(mu_);
  if (auto it = index_.find(key); it != index_.end()) return it->second->second;  // raced
  lru_.emplace_front(key, made);
  index_[key] = lru_.begin();
  while (lru_.size() > capacity_) {
    index_.erase(lru_.back().first);
    lru_.pop_back();
  }
  return made;
}

size_t DeciderCache::size() const {
  std::lock_guard lock(mu_);
  return lru_.size();
}

}  // namespace meadow::server
