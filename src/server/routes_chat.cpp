// POST /v1/chat/completions and POST /v1/completions: OpenAI's shapes over
// generate::generate (block diffusion or causal, meadow/runtime/generate.hpp), whole, streamed
// (server/stream.hpp) or restricted to given strings (`choice`, server/choice.hpp).
#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "meadow/error.hpp"
#include "meadow/runtime/generate.hpp"
#include "meadow/runtime/tool_call.hpp"
#include "server/choice.hpp"
#include "server/context.hpp"
#include "server/guard.hpp"
#include "server/json_errors.hpp"
#include "server/request.hpp"
#include "server/routes.hpp"
#include "server/stream.hpp"
#include "server/text_response.hpp"

namespace meadow::server {
namespace {

using Clock = std::chrono::steady_clock;

int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Parses, tokenizes and sizes the request against the context, all before a worker is taken
// and before a stream's headers go out, so every input error is a plain 4xx.
Prepared prepare(Context& ctx, const std::string& body, bool chat) {
  Prepared p;
  p.req = parse_text_request(parse_body(body), chat, ctx.opts.max_tokens_limit);
  const Tokenizer& tok = ctx.mind.tokenizer();
  // User text is never read as control tokens, as the generate command does.
  p.ids = chat ? generate::chat_prompt_ids(tok, p.req.messages) : tok.encode(p.req.prompt, false);
  if (p.ids.empty())
    throw HttpError(400, "the prompt has no tokens", "invalid_value", chat ? "messages" : "prompt");
  const int64_t ctx_len = ctx.mind.model().config().n_ctx;
  const int64_t room = ctx_len > 0 ? ctx_len - int64_t(p.ids.size()) : INT64_MAX;
  if (room < 1 || (p.req.max_tokens && *p.req.max_tokens > room))
    throw HttpError(400,
                    "the prompt (" + std::to_string(p.ids.size()) + " tokens) plus max_tokens (" +
                        std::to_string(p.req.max_tokens.value_or(1)) +
                        ") exceeds the context length " + std::to_string(ctx_len),
                    "context_length_exceeded", chat ? "messages" : "prompt");
  p.req.gen.max_new_tokens = int(std::min<int64_t>(
      p.req.max_tokens.value_or(ctx.opts.default_max_tokens), std::min<int64_t>(room, INT32_MAX)));
  p.req.gen.threads = ctx.threads;
  if (p.req.logprobs && p.req.choice.empty() && !ctx.mind.model().config().causal)
    throw HttpError(400,
                    "logprobs need a causal model: a diffusion model unmasks tokens out of order, "
                    "so its tokens have no chain-rule probabilities",
                    "unsupported_parameter", "logprobs");
  if (p.req.call_tool && ctx.mind.model().config().causal)
    throw HttpError(400,
                    "tool calls infill argument values into a JSON scaffold and need a diffusion "
                    "model; this one is causal",
                    "unsupported_parameter", "tools");
  if (p.req.logprobs) p.req.gen.logprobs = p.req.top_logprobs;
  p.id = ctx.new_id(chat ? "chatcmpl" : "cmpl");
  p.created = unix_now();
  return p;
}

// The options of choice `i`: its own seed, seed + i.
generate::GenerateOptions choice_options(const Prepared& p, int i) {
  generate::GenerateOptions o = p.req.gen;
  o.seed += uint64_t(i);
  return o;
}

// `lease` holds the worker slot until the answer is built. The n choices run one after another.
void answer_whole(Context& ctx, const Prepared& p, Slots::Lease lease, Clock::time_point start,
                  httplib::Response& res) {
  const auto deadline = ctx.deadline(start);
  Json choices = Json::array();
  size_t completion_tokens = 0;
  for (int i = 0; i < p.req.n; ++i) {
    bool timed_out = false;
    const generate::Generation g =
        generate::generate(ctx.mind.model(), ctx.mind.tokenizer(), p.ids, choice_options(p, i),
                           [&](const generate::Generation&) {
                             timed_out = Clock::now() > deadline;
                             return !timed_out;
                           });
    if (timed_out)
      throw HttpError(504, "generation ran past the server's request timeout", "timeout");
    Json choice = {{"index", i}};
    if (p.req.chat)
      choice["message"] = {{"role", "assistant"}, {"content", g.text}};
    else
      choice["text"] = g.text;
    choice["logprobs"] = p.req.logprobs ? logprobs_json(ctx, p, g.logprobs) : Json();
    choice["finish_reason"] = g.finish_reason;
    choices.push_back(std::move(choice));
    completion_tokens += g.tokens.size();
  }
  Json out = head(ctx, p, p.req.chat ? "chat.completion" : "text_completion");
  out["choices"] = std::move(choices);
  out["usage"] = usage_json(p, completion_tokens);
  res.set_content(dump(out), "application/json");
}

// The text a tool call answers: the last user message (else the last message).
std::string tool_request(const TextRequest& r) {
  for (auto m = r.messages.rbegin(); m != r.messages.rend(); ++m)
    if (m->role == "user") return m->content;
  return r.messages.back().content;
}

// Tools: each choice is one call (the named function, or the model's pick), its argument values
// infilled into the fixed scaffold, so the arguments always parse; whole, or streamed as one
// tool_calls delta per choice.
void answer_tools(Context& ctx, const Prepared& p, Slots::Lease lease, Clock::time_point start,
                  httplib::Response& res) {
  const auto deadline = ctx.deadline(start);
  std::vector<generate::ToolCall> calls;
  size_t completion_tokens = 0;
  for (int i = 0; i < p.req.n; ++i) {
    generate::GenerateOptions o = choice_options(p, i);
    o.threads = ctx.threads;
    calls.push_back(generate::tool_call(ctx.mind.model(), ctx.mind.tokenizer(), tool_request(p.req),
                                        p.req.tools, p.req.tool_name, p.req.tool_value_tokens, o));
    completion_tokens += calls.back().arguments.size() * size_t(p.req.tool_value_tokens);
    if (Clock::now() > deadline)
      throw HttpError(504, "generation ran past the server's request timeout", "timeout");
  }
  if (p.req.stream) {
    std::string sse;
    for (int i = 0; i < p.req.n; ++i) {
      Json role = chunk(ctx, p, "", nullptr, true, i);
      role["choices"][0]["delta"]["content"] = nullptr;
      Json call = chunk(ctx, p, "", nullptr, false, i);
      Json delta = tool_call_message(p, calls[size_t(i)], i, true);
      delta.erase("role");
      delta.erase("content");
      call["choices"][0]["delta"] = delta;
      for (const Json& e : {role, call, chunk(ctx, p, "", "tool_calls", false, i)})
        sse += "data: " + dump(e) + "\n\n";
    }
    if (p.req.include_usage) {
      Json u = head(ctx, p, "chat.completion.chunk");
      u["choices"] = Json::array();
      u["usage"] = usage_json(p, completion_tokens);
      sse += "data: " + dump(u) + "\n\n";
    }
    res.set_content(sse + "data: [DONE]\n\n", "text/event-stream");
    return;
  }
  Json out = head(ctx, p, "chat.completion");
  out["choices"] = Json::array();
  for (int i = 0; i < p.req.n; ++i) {
    Json c = {{"index", i}, {"message", tool_call_message(p, calls[size_t(i)], i, false)}};
    c["logprobs"] = nullptr;
    c["finish_reason"] = "tool_calls";
    out["choices"].push_back(std::move(c));
  }
  out["usage"] = usage_json(p, completion_tokens);
  res.set_content(dump(out), "application/json");
}

// `choice`: the answer is the most likely of the given strings (server/choice.hpp), whole or as
// one streamed piece; the scores and the method come with it. Scoring is deterministic, so n
// choices are n copies.
void answer_choice(Context& ctx, const Prepared& p, Slots::Lease lease, httplib::Response& res) {
  const ChoiceResult c =
      score_choices(ctx.mind.model(), ctx.mind.tokenizer(), p.ids, p.req.choice, ctx.threads);
  const ChoiceScore& best = c.scores[c.best];
  const size_t completion_tokens = best.tokens.size() * size_t(p.req.n);
  Json scores = Json::array();
  for (const auto& s : c.scores)
    scores.push_back({{"text", s.text}, {"logprob", s.logprob}, {"tokens", s.tokens.size()}});
  if (p.req.stream) {
    std::string sse;
    for (int i = 0; i < p.req.n; ++i)
      for (const Json& e :
           {chunk(ctx, p, "", nullptr, true, i), chunk(ctx, p, best.text, nullptr, false, i),
            chunk(ctx, p, "", "stop", false, i)})
        sse += "data: " + dump(e) + "\n\n";
    if (p.req.include_usage) {
      Json u = head(ctx, p, p.req.chat ? "chat.completion.chunk" : "text_completion");
      u["choices"] = Json::array();
      u["usage"] = usage_json(p, completion_tokens);
      sse += "data: " + dump(u) + "\n\n";
    }
    res.set_content(sse + "data: [DONE]\n\n", "text/event-stream");
    return;
  }
  Json out = head(ctx, p, p.req.chat ? "chat.completion" : "text_completion");
  out["choices"] = Json::array();
  for (int i = 0; i < p.req.n; ++i) {
    Json choice = {{"index", i}};
    if (p.req.chat)
      choice["message"] = {{"role", "assistant"}, {"content", best.text}};
    else
      choice["text"] = best.text;
    choice["logprobs"] = nullptr;
    choice["finish_reason"] = "stop";
    out["choices"].push_back(std::move(choice));
  }
  out["usage"] = usage_json(p, completion_tokens);
  out["choice_scores"] = scores;
  out["choice_method"] = c.method;
  res.set_content(dump(out), "application/json");
}

void handle(Context& ctx, const httplib::Request& req, httplib::Response& res, bool chat) {
  const auto start = Clock::now();
  auto p = std::make_shared<const Prepared>(prepare(ctx, req.body, chat));
  Slots::Lease lease = ctx.admit(start);
  if (p->req.call_tool)
    answer_tools(ctx, *p, std::move(lease), start, res);
  else if (!p->req.choice.empty())
    answer_choice(ctx, *p, std::move(lease), res);
  else if (p->req.stream)
    answer_stream(ctx, p, std::move(lease), start, res);
  else
    answer_whole(ctx, *p, std::move(lease), start, res);
}

}  // namespace

void add_text_routes(Router& router, Context& ctx) {
  router.post(
      "/v1/chat/completions",
      guard([&ctx](const httplib::Request& q, httplib::Response& r) { handle(ctx, q, r, true); }));
  router.post("/v1/completions", guard([&ctx](const httplib::Request& q, httplib::Response& r) {
                handle(ctx, q, r, false);
              }));
}

}  // namespace meadow::server
