// Streamed answers: server-sent events, one `data:` chunk per committed block (diffusion) or
// token (causal) carrying the new text, then a chunk with finish_reason, optionally usage, and
// `data: [DONE]`.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string_view>

#include <httplib.h>

#include "server/queue.hpp"
#include "server/text_response.hpp"

namespace meadow::server {

struct Context;

// How much of `text` is final: text may still end in the start of a stop string (cut later,
// `hold` = the longest stop string's length - 1) or in a UTF-8 character whose other bytes have
// not been generated yet; those bytes wait.
size_t stable_length(std::string_view text, size_t hold);

// Sets up the response's event stream; generation runs when httplib pulls it, on the same
// connection thread, holding `lease` until the stream ends.
void answer_stream(Context& ctx, std::shared_ptr<const Prepared> p, Slots::Lease lease,
                   std::chrono::steady_clock::time_point start, httplib::Response& res);

}  // namespace meadow::server
