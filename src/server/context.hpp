// What every route shares: the options, the loaded mind, the worker slots and the decision
// tables. One per Server, passed by reference; nothing here is global.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "meadow/mind.hpp"
#include "meadow/runtime/server.hpp"
#include "server/decider_cache.hpp"
#include "server/queue.hpp"

namespace meadow::server {

struct Context {
  explicit Context(ServerOptions o);

  const ServerOptions opts;
  Mind mind;  // the model and tokenizer, loaded once; read-only after
  const std::string model_id;
  const int64_t created;  // unix seconds of the load, for /v1/models
  const int threads;      // per model pass
  Slots slots;
  // The decision tables: a decoder's prefixes, or a meadow-reader's readings (one is set).
  std::optional<DeciderCache> deciders;
  std::optional<ReadingCache> readings;

  // A fresh response id: PREFIX-<process salt><counter>, unique across replicas and requests.
  std::string new_id(const char* prefix);

  // A worker slot for a request that arrived at `start`; throws HttpError 503 when the queue is
  // full or the wait ran past the request timeout.
  Slots::Lease admit(std::chrono::steady_clock::time_point start);
  std::chrono::steady_clock::time_point deadline(std::chrono::steady_clock::time_point start) const;

 private:
  const uint64_t salt_;
  std::atomic<uint64_t> next_id_{1};
};

}  // namespace meadow::server
