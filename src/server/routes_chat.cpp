// POST /v1/chat/completions and POST /v1/completions: OpenAI's shapes over
// diffusion::generate (block diffusion or causal, meadow/generate.hpp), whole or streamed as
// server-sent events, one event per committed block (diffusion) or token (causal).
#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "meadow/error.hpp"
#include "meadow/generate.hpp"
#include "server/choice.hpp"
#include "server/context.hpp"
#include "server/guard.hpp"
#include "server/json_errors.hpp"
#include "server/logprobs.hpp"
#include "server/request.hpp"
#include "server/routes.hpp"

namespace meadow::server {
namespace {

using Clock = std::chrono::steady_clock;

struct Prepared {
  TextRequest req;
  std::vector<int32_t> ids;
  std::string id;
  int64_t created = 0;
};

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
  p.ids = chat ? diffusion::chat_prompt_ids(tok, p.req.messages) : tok.encode(p.req.prompt, false);
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
  p.id = ctx.new_id(chat ? "chatcmpl" : "cmpl");
  p.created = unix_now();
  return p;
}

Json usage_json(const Prepared& p, size_t completion_tokens) {
  return {{"prompt_tokens", p.ids.size()},
          {"completion_tokens", completion_tokens},
          {"total_tokens", p.ids.size() + completion_tokens}};
}

Json head(const Context& ctx, const Prepared& p, const char* object) {
  return {{"id", p.id}, {"object", object}, {"created", p.created}, {"model", ctx.model_id}};
}

// One choice of a streamed chunk: a delta (chat) or a text piece (completions).
Json chunk(const Context& ctx, const Prepared& p, std::string_view text, const Json& finish,
           bool first) {
  Json c = head(ctx, p, p.req.chat ? "chat.completion.chunk" : "text_completion");
  Json choice = {{"index", 0}};
  if (p.req.chat) {
    Json delta = Json::object();
    if (first) delta["role"] = "assistant";
    if (!text.empty() || first) delta["content"] = std::string(text);
    choice["delta"] = delta;
  } else {
    choice["text"] = std::string(text);
  }
  choice["logprobs"] = nullptr;
  choice["finish_reason"] = finish;
  c["choices"] = Json::array({choice});
  return c;
}

// How much of `text` is final: text may still end in the start of a stop string (cut later) or
// in a UTF-8 character whose other bytes have not been generated yet; those bytes wait.
size_t stable_length(std::string_view text, size_t hold) {
  size_t n = text.size() > hold ? text.size() - hold : 0;
  // Back off over an incomplete UTF-8 sequence at the end of [0, n).
  for (size_t back = 1; back <= 4 && back <= n; ++back) {
    const unsigned char c = static_cast<unsigned char>(text[n - back]);
    if ((c & 0xC0) == 0x80) continue;  // continuation byte: keep looking for the lead
    const size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    if (len > back) n -= back;
    break;
  }
  return n;
}

// The `logprobs` field of a choice, in the chat or the completions format.
Json logprobs_json(const Context& ctx, const Prepared& p, const diffusion::Generation& g) {
  const Tokenizer& tok = ctx.mind.tokenizer();
  const auto lp =
      token_logprobs(ctx.mind.model(), p.ids, g.tokens, p.req.top_logprobs, ctx.threads);
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
  size_t offset = 0;
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

// `lease` holds the worker slot until the answer is built.
void answer_whole(Context& ctx, const Prepared& p, Slots::Lease lease, Clock::time_point start,
                  httplib::Response& res) {
  const auto deadline = ctx.deadline(start);
  bool timed_out = false;
  const diffusion::Generation g = diffusion::generate(ctx.mind.model(), ctx.mind.tokenizer(), p.ids,
                                                      p.req.gen, [&](std::string_view) {
                                                        timed_out = Clock::now() > deadline;
                                                        return !timed_out;
                                                      });
  if (timed_out)
    throw HttpError(504, "generation ran past the server's request timeout", "timeout");
  Json out = head(ctx, p, p.req.chat ? "chat.completion" : "text_completion");
  Json choice = {{"index", 0}};
  if (p.req.chat)
    choice["message"] = {{"role", "assistant"}, {"content", g.text}};
  else
    choice["text"] = g.text;
  choice["logprobs"] = p.req.logprobs ? logprobs_json(ctx, p, g) : Json();
  choice["finish_reason"] = g.finish_reason;
  out["choices"] = Json::array({choice});
  out["usage"] = usage_json(p, g.tokens.size());
  res.set_content(dump(out), "application/json");
}

void answer_stream(Context& ctx, std::shared_ptr<const Prepared> p, Slots::Lease lease,
                   Clock::time_point start, httplib::Response& res) {
  // The provider runs after this handler returns, on the same connection thread; it owns the
  // worker slot until the stream ends.
  auto held = std::make_shared<Slots::Lease>(std::move(lease));
  res.set_header("Cache-Control", "no-cache");
  res.set_header("X-Accel-Buffering", "no");  // proxies (nginx) pass events through unbuffered
  res.set_chunked_content_provider("text/event-stream", [&ctx, p, held, start](
                                                            size_t, httplib::DataSink& sink) {
    auto send = [&](const std::string& data) {
      const std::string event = "data: " + data + "\n\n";
      return sink.write(event.data(), event.size());
    };
    const auto deadline = ctx.deadline(start);
    size_t hold = 0;
    for (const auto& s : p->req.gen.stop) hold = std::max(hold, s.size() - 1);
    size_t sent = 0;
    bool gone = false, timed_out = false;
    std::string final_text, finish;
    size_t n_tokens = 0;
    // Nothing may escape a content provider: it runs outside the handler's guard.
    try {
      if (!send(dump(chunk(ctx, *p, "", nullptr, true)))) return false;
      const diffusion::Generation g = diffusion::generate(
          ctx.mind.model(), ctx.mind.tokenizer(), p->ids, p->req.gen, [&](std::string_view text) {
            if (Clock::now() > deadline) {
              timed_out = true;
              return false;
            }
            const size_t n = stable_length(text, hold);
            if (n > sent) {
              if (!send(dump(chunk(ctx, *p, text.substr(sent, n - sent), nullptr, false)))) {
                gone = true;  // the client left: stop generating for it
                return false;
              }
              sent = n;
            }
            return true;
          });
      if (gone) return false;
      final_text = g.text;
      finish = g.finish_reason;
      n_tokens = g.tokens.size();
    } catch (const std::exception& e) {
      const int status = dynamic_cast<const Error*>(&e) ? 400 : 500;
      send(
          dump(error_json(status, e.what(), status == 400 ? "invalid_request" : "internal_error")));
      send("[DONE]");
      sink.done();
      return true;
    }
    if (timed_out) {
      send(dump(error_json(504, "generation ran past the server's request timeout", "timeout")));
      send("[DONE]");
      sink.done();
      return true;
    }
    // The rest of the text; `sent` is always a prefix of it (held-back bytes included).
    const std::string_view rest =
        final_text.size() > sent ? std::string_view(final_text).substr(sent) : "";
    if (!rest.empty() && !send(dump(chunk(ctx, *p, rest, nullptr, false)))) return false;
    if (!send(dump(chunk(ctx, *p, "", finish, false)))) return false;
    if (p->req.include_usage) {
      Json u = head(ctx, *p, p->req.chat ? "chat.completion.chunk" : "text_completion");
      u["choices"] = Json::array();
      u["usage"] = usage_json(*p, n_tokens);
      if (!send(dump(u))) return false;
    }
    send("[DONE]");
    sink.done();
    return true;
  });
}

// `choice`: the answer is the most likely of the given strings (server/choice.hpp), whole or as
// one streamed piece; the scores and the method come with it.
void answer_choice(Context& ctx, const Prepared& p, Slots::Lease lease, httplib::Response& res) {
  const ChoiceResult c =
      score_choices(ctx.mind.model(), ctx.mind.tokenizer(), p.ids, p.req.choice, ctx.threads);
  const ChoiceScore& best = c.scores[c.best];
  Json scores = Json::array();
  for (const auto& s : c.scores)
    scores.push_back({{"text", s.text}, {"logprob", s.logprob}, {"tokens", s.tokens.size()}});
  if (p.req.stream) {
    std::string sse;
    for (const Json& e :
         {chunk(ctx, p, "", nullptr, true), chunk(ctx, p, best.text, nullptr, false),
          chunk(ctx, p, "", "stop", false)})
      sse += "data: " + dump(e) + "\n\n";
    if (p.req.include_usage) {
      Json u = head(ctx, p, p.req.chat ? "chat.completion.chunk" : "text_completion");
      u["choices"] = Json::array();
      u["usage"] = usage_json(p, best.tokens.size());
      sse += "data: " + dump(u) + "\n\n";
    }
    res.set_content(sse + "data: [DONE]\n\n", "text/event-stream");
    return;
  }
  Json out = head(ctx, p, p.req.chat ? "chat.completion" : "text_completion");
  Json choice = {{"index", 0}};
  if (p.req.chat)
    choice["message"] = {{"role", "assistant"}, {"content", best.text}};
  else
    choice["text"] = best.text;
  choice["logprobs"] = nullptr;
  choice["finish_reason"] = "stop";
  out["choices"] = Json::array({choice});
  out["usage"] = usage_json(p, best.tokens.size());
  out["choice_scores"] = scores;
  out["choice_method"] = c.method;
  res.set_content(dump(out), "application/json");
}

void handle(Context& ctx, const httplib::Request& req, httplib::Response& res, bool chat) {
  const auto start = Clock::now();
  auto p = std::make_shared<const Prepared>(prepare(ctx, req.body, chat));
  Slots::Lease lease = ctx.admit(start);
  if (!p->req.choice.empty())
    answer_choice(ctx, *p, std::move(lease), res);
  else if (p->req.stream)
    answer_stream(ctx, p, std::move(lease), start, res);
  else
    answer_whole(ctx, *p, std::move(lease), start, res);
}

}  // namespace

void add_text_routes(httplib::Server& http, Context& ctx) {
  http.Post("/v1/chat/completions", guard([&ctx](const httplib::Request& q, httplib::Response& r) {
              handle(ctx, q, r, true);
            }));
  http.Post("/v1/completions", guard([&ctx](const httplib::Request& q, httplib::Response& r) {
              handle(ctx, q, r, false);
            }));
}

}  // namespace meadow::server
