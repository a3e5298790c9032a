// The event stream of a text answer (server/stream.hpp).
#include "server/stream.hpp"

#include <algorithm>
#include <string>

#include "meadow/error.hpp"
#include "server/context.hpp"
#include "server/json_errors.hpp"

namespace meadow::server {

using Clock = std::chrono::steady_clock;

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

void answer_stream(Context& ctx, std::shared_ptr<const Prepared> p, Slots::Lease lease,
                   std::chrono::steady_clock::time_point start, httplib::Response& res) {
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

}  // namespace meadow::server
