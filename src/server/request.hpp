// Reading request bodies without trusting them: the JSON itself (nesting capped before
// parsing), then each field's type and range. Every problem is an HttpError 400 naming the
// field, so a client learns what to fix and the server never acts on half-checked input.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "meadow/chat_template.hpp"
#include "meadow/generate.hpp"

namespace meadow::server {

using Json = nlohmann::ordered_json;  // keeps the client's key order (decide's options)

// Far deeper than any request needs, far shallower than what overflows a stack when a value
// is copied or dumped (those recurse; parsing does not).
inline constexpr int kMaxJsonDepth = 32;

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
  diffusion::GenerateOptions gen;     // everything but max_new_tokens and threads
  bool stream = false;
  bool include_usage = false;  // stream_options.include_usage: a last chunk with usage
  // Per-token log-probabilities (server/logprobs.hpp): chat's logprobs + top_logprobs (0..20),
  // completions' logprobs: N (0..5 alternatives). Not with stream.
  bool logprobs = false;
  int top_logprobs = 0;
  // `choice` (alias `guided_choice`): the answer is the most likely of these strings
  // (server/choice.hpp); empty: free generation.
  std::vector<std::string> choice;
};

// Reads messages (chat) or prompt (completions), temperature, top_p, max_tokens (or
// max_completion_tokens), seed, stop, n, stream, stream_options, and the diffusion extras
// block_size, steps, threshold, confidence, and choice. Fields the server does not use are ignored,
// as OpenAI's clients send many; ones whose meaning it cannot honour (n > 1, logprobs) are 400.
TextRequest parse_text_request(const Json& body, bool chat, int max_tokens_limit);

}  // namespace meadow::server
