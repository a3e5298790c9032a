// The byte-bounded LRU of decision tables (server/decider_cache.hpp).
#include "server/decider_cache.hpp"

namespace meadow::server {

DeciderCache::DeciderCache(const model::Model& model, const Tokenizer& tok,
                           diffusion::DecideOptions opts, size_t budget_bytes)
    : model_(model),
      tok_(tok),
      opts_(std::move(opts)),
      budget_(budget_bytes),
      bytes_per_token_(size_t(model.config().n_layer) * 2 * size_t(model.config().n_head_kv) *
                       size_t(model.config().head_dim) * sizeof(float)) {}

std::shared_ptr<const diffusion::Decider> DeciderCache::get(
    const std::string& rule, const std::vector<diffusion::Choice>& choices) {
  // Length-prefixed texts, so no option text can forge another table's key (as Mind does).
  std::string key = std::to_string(rule.size()) + ':' + rule;
  for (const auto& c : choices) key += c.letter + std::to_string(c.text.size()) + ':' + c.text;
  {
    std::lock_guard lock(mu_);
    if (auto it = index_.find(key); it != index_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second);
      return it->second->decider;
    }
  }
  auto made = std::make_shared<const diffusion::Decider>(model_, tok_, rule, choices, opts_);
  // The K/V it holds, plus its key (the texts themselves).
  const size_t bytes =
      (made->cached() ? made->prompt_ids("").prefix.size() * bytes_per_token_ : 0) + key.size();
  if (bytes > budget_) return made;
  std::lock_guard lock(mu_);
  if (auto it = index_.find(key); it != index_.end()) return it->second->decider;  // raced
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

size_t DeciderCache::size() const {
  std::lock_guard lock(mu_);
  return lru_.size();
}

size_t DeciderCache::bytes() const {
  std::lock_guard lock(mu_);
  return bytes_;
}

}  // namespace meadow::server
