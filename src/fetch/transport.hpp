// What pull() needs from HTTP, so that the resume logic runs the same over curl (pull.cpp) and
// over a fake server that plays scripted replies (fuzz/fuzz_pull.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "meadow/runtime/fetch.hpp"

namespace meadow::fetch::detail {

struct HttpGet {
  std::string url;  // exactly as the user gave it (userinfo included: curl uses it)
  bool https_only_redirects = false;
  uint64_t offset = 0;   // > 0: "Range: bytes=OFFSET-"
  std::string if_range;  // with the Range, when not empty
  long connect_timeout_s = 30;
};

// Receives one request's responses. A transport calls header() for every header line of every
// response (a status line "HTTP/…" starts a new one; redirects are followed by the transport)
// and body() with the final response's body. Neither throws.
class ResponseSink {
 public:
  virtual ~ResponseSink() = default;
  virtual void header(std::string_view line) = 0;
  // False: stop the transfer (get() then returns kAborted).
  virtual bool body(const char* data, size_t n) = 0;
  // Called now and then while waiting; false: stop (a stall).
  virtual bool tick() = 0;
};

struct GetEnd {
  enum Kind {
    kDone,     // the final response's body ended as announced
    kAborted,  // a sink call returned false
    kFailed,   // connection, protocol or transfer error: `error` says which (one line)
  } kind = kFailed;
  std::string error;
};

class Transport {
 public:
  virtual ~Transport() = default;
  virtual GetEnd get(const HttpGet& req, ResponseSink& sink) = 0;
};

// Opens the finished .part (or an existing final file) the way pull requires: returns its
// general.architecture, throws meadow::Error when it is not acceptable. pull() uses the GGUF
// reader; the fuzzer its own check.
using Inspect = std::function<std::string(const std::string& path)>;

// pull() over any transport (pull() itself: curl and the GGUF reader).
PullResult pull_with(const PullRequest& req, Transport& transport, const Inspect& inspect);

// The record's file name beside the .part: FILE.gguf.part.json.
inline std::string record_path(const std::string& part_path) {
  return part_path + ".json";
}

}  // namespace meadow::fetch::detail
