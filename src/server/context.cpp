// The server's shared state (server/context.hpp).
#include "server/context.hpp"

#include <cstdio>
#include <filesystem>
#include <random>

#include "meadow/error.hpp"
#include "server/json_errors.hpp"

namespace meadow::server {
namespace {

MindOptions mind_options(const ServerOptions& o) {
  MindOptions m;
  m.decide.threads = o.threads;
  m.lora = o.lora;
  return m;
}

const ServerOptions& checked(const ServerOptions& o) {
  if (o.workers < 1) throw Error("serve: --workers must be at least 1");
  if (o.queue < 0) throw Error("serve: --queue must not be negative");
  if (!(o.timeout_s > 0)) throw Error("serve: --timeout must be positive");
  if (o.port < 0 || o.port > 65535) throw Error("serve: --port must be in 0..65535");
  if (o.max_tokens_limit < 1) throw Error("serve: --max-tokens-limit must be at least 1");
  if (o.default_max_tokens < 1 || o.default_max_tokens > o.max_tokens_limit)
    throw Error("serve: --default-max-tokens must be in 1..--max-tokens-limit");
  return o;
}

}  // namespace

Context::Context(ServerOptions o)
    : opts(checked(o)),
      mind(o.model, mind_options(o)),
      model_id(o.model_id.empty() ? std::filesystem::path(mind.model_path()).stem().string()
                                  : o.model_id),
      created(std::chrono::duration_cast<std::chrono::seconds>(
                  std::chrono::system_clock::now().time_since_epoch())
                  .count()),
      threads(mind.options().decide.threads),
      slots(o.workers, o.queue),
      salt_(std::random_device{}()) {
  if (const reader::Reader* r = mind.reader())
    readings.emplace(*r, threads, o.decide_cache_bytes);
  else
    deciders.emplace(mind.model(), mind.tokenizer(), mind.options().decide, o.decide_cache_bytes);
}

std::string Context::new_id(const char* prefix) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s-%08llx%llx", prefix,
                static_cast<unsigned long long>(salt_ & 0xffffffffu),
                static_cast<unsigned long long>(next_id_.fetch_add(1)));
  return buf;
}

std::chrono::steady_clock::time_point Context::deadline(
    std::chrono::steady_clock::time_point start) const {
  return start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                     std::chrono::duration<double>(opts.timeout_s));
}

Slots::Lease Context::admit(std::chrono::steady_clock::time_point start) {
  Slots::Refusal why;
  Slots::Lease lease = slots.acquire(deadline(start), why);
  if (why == Slots::Refusal::full)
    throw HttpError(503, "the server is busy: every worker and queue place is taken; retry later",
                    "server_busy");
  if (why == Slots::Refusal::timeout)
    throw HttpError(503, "the request waited past the server's timeout for a free worker",
                    "queue_timeout");
  return lease;
}

}  // namespace meadow::server
