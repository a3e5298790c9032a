// The byte-bounded caches of decision tables (server/decider_cache.hpp).
#include "server/decider_cache.hpp"

#include <utility>

#include "meadow/error.hpp"

namespace meadow::server {

DeciderCache::DeciderCache(const model::Model& model, const Tokenizer& tok, DecideOptions opts,
                           size_t budget_bytes)
    : model_(model),
      tok_(tok),
      opts_(std::move(opts)),
      bytes_per_token_(size_t(model.config().n_layer) * 2 * size_t(model.config().n_head_kv) *
                       size_t(model.config().head_dim) * sizeof(float)),
      cache_(budget_bytes) {}

std::shared_ptr<const decision::Decider> DeciderCache::get(
    const std::string& rule, const std::vector<decision::Choice>& choices) {
  return cache_.get(table_key(rule, choices), [&] {
    auto made = std::make_shared<const decision::Decider>(model_, tok_, rule, choices, opts_);
    const size_t bytes = made->cached() ? made->prompt_ids("").prefix.size() * bytes_per_token_ : 0;
    return std::pair{std::shared_ptr<const decision::Decider>(made), bytes};
  });
}

ReadingCache::ReadingCache(const reader::Reader& reader, int threads, size_t budget_bytes)
    : reader_(reader), threads_(threads), cache_(budget_bytes) {}

std::shared_ptr<const reader::Reading> ReadingCache::get(
    const std::string& rule, const std::vector<reader::Option>& options) {
  return cache_.get(table_key(rule, options), [&] {
    auto made =
        std::make_shared<const reader::Reading>(reader_.read(rule, options, {.threads = threads_}));
    if (const std::string why = made->unreadable(); !why.empty()) throw Error(why);
    // What it keeps per distinct literal: its token states, their query projection and the
    // vectors beside them.
    size_t bytes = rule.size();
    for (const reader::JudgedLiteral& j : made->judged)
      bytes += (j.states.data.size() + j.query.size() + j.mean.size() + j.value_w.size()) *
                   sizeof(float) +
               j.text.size();
    return std::pair{std::shared_ptr<const reader::Reading>(made), bytes};
  });
}

}  // namespace meadow::server
