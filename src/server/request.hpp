// Reading request bodies without trusting them: the JSON itself (nesting capped before
// parsing), then each field's type and range. Every problem is an HttpError 400 naming the
// field, so a client learns what to fix and the server never acts on half-checked input.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "meadow/runtime/chat_template.hpp"
#include "meadow/runtime/generate.hpp"
#include "meadow/runtime/tool_call.hpp"

namespace meadow::server {

using Json = nlohmann::ordered_json;  // keeps the client's key order (decide's options)

// The most choices (`n`) one request may ask.
inline constexpr int kMaxChoices = 16;

// The body as one JSON object. Throws HttpError 400: invalid_json, too deeply nested, or not
// an object.
Json parse_body(const std::string& body);

// Field readers: absent or null → nullopt; a wrong type or a value out of [lo, hi] → 400.
std::optional<std::string> opt_string(const Json& body, const char* key);
std::string required_string(const Json& body, const char* key);
std::optional<double> opt_number(const Json& body, const char* key, double lo, double hi);
std::optional<int64_t> opt_int(const Json& body, const char* key, int64_t lo, int64_t hi);
std::optional<bool> opt_bool(const Json& body, const char* key);

// A chat or text completion request, checked.
struct TextRequest {
  bool chat = true;
  std::vector<ChatMessage> messages;  // chat
  std::string prompt;                 // text completion
  std::optional<int> max_tokens;      // absent: the server's default
  generate::GenerateOptions gen;      // everything but max_new_tokens and threads
  int n = 1;                          // choices; choice i is generated with seed + i
  bool stream = false;
  bool include_usage = false;  // stream_options.include_usage: a last chunk with usage
  // Per-token log-probabilities (causal models; generate::TokenLogprob): chat's logprobs +
  // top_logprobs (0..20), completions' logprobs: N (0..5 alternatives). Streamed too: each
  // chunk carries its tokens'.
  bool logprobs = false;
  int top_logprobs = 0;
  // `choice` (alias `guided_choice`): the answer is the most likely of these strings
  // (server/choice.hpp); empty: free generation.
  std::vector<std::string> choice;
  // Chat `tools` (OpenAI function definitions) with `tool_choice` other than "none": the answer
  // is a tool call whose argument values are infilled into a fixed JSON scaffold
  // (meadow/tool_call.hpp). `tool_name` empty: the model chooses the tool ("auto", "required").
  std::vector<generate::Tool> tools;
  bool call_tool = false;
  std::string tool_name;
  int tool_value_tokens = 8;  // tokens infilled per argument value
};

// Reads messages (chat) or prompt (completions), temperature, top_p, max_tokens (or
// max_completion_tokens), seed, stop, n (1..16), stream, stream_options, logprobs, tools and
// tool_choice (chat), and the extras block_size, steps, threshold, confidence, choice and
// tool_value_tokens. Fields the server does not use are ignored, as OpenAI's clients send many.
TextRequest parse_text_request(const Json& body, bool chat, int max_tokens_limit);

}  // namespace meadow::server
