// OpenAI's answer shapes (server/text_response.hpp).
#include "server/text_response.hpp"

#include <span>

#include "server/context.hpp"
#include "server/json_errors.hpp"

namespace meadow::server {

Json usage_json(const Prepared& p, size_t completion_tokens) {
  return {{"prompt_tokens", p.ids.size()},
          {"completion_tokens", completion_tokens},
          {"total_tokens", p.ids.size() + completion_tokens}};
}

Json head(const Context& ctx, const Prepared& p, const char* object) {
  return {{"id", p.id}, {"object", object}, {"created", p.created}, {"model", ctx.model_id}};
}

Json chunk(const Context& ctx, const Prepared& p, std::string_view text, const Json& finish,
           bool first, int index, const Json& logprobs) {
  Json c = head(ctx, p, p.req.chat ? "chat.completion.chunk" : "text_completion");
  Json choice = {{"index", index}};
  if (p.req.chat) {
    Json delta = Json::object();
    if (first) delta["role"] = "assistant";
    if (!text.empty() || first) delta["content"] = std::string(text);
    choice["delta"] = delta;
  } else {
    choice["text"] = std::string(text);
  }
  choice["logprobs"] = logprobs;
  choice["finish_reason"] = finish;
  c["choices"] = Json::array({choice});
  return c;
}

size_t logprobs_text_size(const Context& ctx, std::span<const generate::TokenLogprob> tokens) {
  size_t n = 0;
  for (const auto& t : tokens)
    n += ctx.mind.tokenizer().decode(std::span<const int32_t>(&t.id, 1)).size();
  return n;
}

Json tool_call_message(const Prepared& p, const generate::ToolCall& call, int index, bool delta) {
  // call.json is {"name", "arguments": {...}}, valid whatever the model wrote.
  const Json parsed = Json::parse(call.json);
  Json c = Json::object();
  if (delta) c["index"] = 0;  // the call's place among the message's calls: one call
  c["id"] = p.id + "-call" + std::to_string(index);
  c["type"] = "function";
  c["function"] = {{"name", call.name}, {"arguments", dump(parsed["arguments"])}};
  return {{"role", "assistant"}, {"content", nullptr}, {"tool_calls", Json::array({c})}};
}

Json logprobs_json(const Context& ctx, const Prepared& p,
                   std::span<const generate::TokenLogprob> lp, size_t text_offset) {
  const Tokenizer& tok = ctx.mind.tokenizer();
  auto text_of = [&](int32_t id) { return tok.decode(std::span<const int32_t>(&id, 1)); };
  auto bytes_of = [](const std::string& s) {
    Json b = Json::array();
    for (unsigned char c : s) b.push_back(int(c));
    return b;
  };
  if (p.req.chat) {
    Json content = Json::array();
    for (const auto& t : lp) {
      const std::string text = text_of(t.id);
      Json top = Json::array();
      for (const auto& [id, l] : t.top) {
        const std::string tt = text_of(id);
        top.push_back({{"token", tt}, {"logprob", l}, {"bytes", bytes_of(tt)}});
      }
      content.push_back({{"token", text},
                         {"logprob", t.logprob},
                         {"bytes", bytes_of(text)},
                         {"top_logprobs", top}});
    }
    return {{"content", content}, {"refusal", nullptr}};
  }
  Json tokens = Json::array(), token_lp = Json::array(), tops = Json::array(),
       offsets = Json::array();
  size_t offset = text_offset;
  for (const auto& t : lp) {
    const std::string text = text_of(t.id);
    tokens.push_back(text);
    token_lp.push_back(t.logprob);
    Json top = Json::object();
    for (const auto& [id, l] : t.top) top[text_of(id)] = l;
    tops.push_back(top);
    offsets.push_back(offset);
    offset += text.size();
  }
  return {{"tokens", tokens},
          {"token_logprobs", token_lp},
          {"top_logprobs", tops},
          {"text_offset", offsets}};
}

}  // namespace meadow::server
