// The server's request bodies (chat and text completions), as `meadow-mind serve` reads them.
// The first byte picks the route (even: /v1/chat/completions, odd: /v1/completions); the rest
// is the body. On any bytes:
//   parse_body and parse_text_request throw nothing but HttpError, always a 4xx;
//   the error body the server would send (error_json, written with invalid UTF-8 replaced)
//     serializes, and its message is one line;
//   an accepted request is in range: n in 1..16, max_tokens in 1..the limit, top_logprobs in
//     0..20, temperature, top_p and threshold finite and not negative, block size positive,
//     chat messages present for a chat request, and a named tool is one of the tools.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "server/json_errors.hpp"
#include "server/request.hpp"

namespace {

using namespace meadow::server;

constexpr int kLimit = 256;

void check(const TextRequest& r, bool chat) {
  if (r.n < 1 || r.n > kMaxChoices) std::abort();
  if (r.max_tokens && (*r.max_tokens < 1 || *r.max_tokens > kLimit)) std::abort();
  if (r.top_logprobs < 0 || r.top_logprobs > 20) std::abort();
  const auto& g = r.gen;
  for (const double v : {g.temperature, g.top_p, g.threshold})
    if (!std::isfinite(v) || v < 0) std::abort();
  if (g.block_size < 1) std::abort();
  if (chat && r.messages.empty()) std::abort();
  if (!r.tool_name.empty()) {
    bool found = false;
    for (const auto& t : r.tools) found = found || t.name == r.tool_name;
    if (!found) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const bool chat = data[0] % 2 == 0;
  const std::string body(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    const Json j = parse_body(body);
    check(parse_text_request(j, chat, kLimit), chat);
  } catch (const HttpError& e) {
    if (e.status < 400 || e.status > 499) std::abort();
    const std::string out = error_json(e.status, e.what(), e.code, e.param)
                                .dump(-1, ' ', false, Json::error_handler_t::replace);
    for (const char* p = e.what(); *p; ++p)
      if (*p == '\n' || *p == '\r') std::abort();
    if (out.empty()) std::abort();
  }
  return 0;
}
