// The JSON shapes of OpenAI's text answers: whole completions, streamed chunks, usage and
// logprobs, for chat (chat.completion[.chunk]) and text completions (text_completion).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "meadow/runtime/generate.hpp"
#include "meadow/runtime/tool_call.hpp"
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
// One streamed chunk of choice `index`: a delta (chat; the first also carries the role) or a
// text piece, with its tokens' `logprobs` (null when not asked).
Json chunk(const Context& ctx, const Prepared& p, std::string_view text, const Json& finish,
           bool first, int index = 0, const Json& logprobs = nullptr);
// The `logprobs` field of a choice, or of a chunk holding these tokens, in the chat or the
// completions format; `text_offset` is where the first token's text starts in the answer
// (completions' text_offset).
Json logprobs_json(const Context& ctx, const Prepared& p,
                   std::span<const generate::TokenLogprob> tokens, size_t text_offset = 0);
// The bytes of the tokens' texts, as logprobs_json counts them for text_offset.
size_t logprobs_text_size(const Context& ctx, std::span<const generate::TokenLogprob> tokens);
// A chat message (or a stream's delta) holding one tool call: {"role": "assistant", "content":
// null, "tool_calls": [{"id", "type": "function", "function": {"name", "arguments"}}]}, the
// arguments as a JSON string, as OpenAI sends them (delta: each call also has its "index").
Json tool_call_message(const Prepared& p, const generate::ToolCall& call, int index, bool delta);

}  // namespace meadow::server
