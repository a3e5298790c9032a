// The JSON shapes of OpenAI's text answers: whole completions, streamed chunks, usage and
// logprobs, for chat (chat.completion[.chunk]) and text completions (text_completion).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "meadow/generate.hpp"
#include "server/request.hpp"

namespace meadow::server {

struct Context;

// A checked request with its prompt tokens and response id (routes_chat.cpp prepares it).
struct Prepared {
  TextRequest req;
  std::vector<int32_t> ids;
  std::string id;
  int64_t created = 0;
};

Json usage_json(const Prepared& p, size_t completion_tokens);
// id, object, created, model.
Json head(const Context& ctx, const Prepared& p, const char* object);
// One streamed chunk: a delta (chat; the first also carries the role) or a text piece.
Json chunk(const Context& ctx, const Prepared& p, std::string_view text, const Json& finish,
           bool first);
// The `logprobs` field of a choice (server/logprobs.hpp), in the chat or completions format.
Json logprobs_json(const Context& ctx, const Prepared& p, const diffusion::Generation& g);

}  // namespace meadow::server
