// The event stream of a text answer (server/stream.hpp).
#include "server/stream.hpp"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

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

namespace {

enum class Outcome { done, gone, failed };  // failed: an error event went out

// How often a stream that sends no text checks that its client is still there.
constexpr auto kProbeEvery = std::chrono::milliseconds(200);

// Choice `index` of a streamed answer, generated on the calling thread: its events go to
// `emit` (false: the client left, or another choice failed; stop). Each chunk carries the text
// that became final and, when asked, the logprobs of the tokens committed since the last one.
// `alive` is asked whenever a step sends nothing (text held back for a stop string): false
// when the client has left, so that generation stops without waiting for the next text.
Outcome stream_choice(Context& ctx, const Prepared& p, int index, Clock::time_point deadline,
                      const std::function<bool(const std::string&)>& emit,
                      const std::function<bool()>& alive, size_t& n_tokens) {
  size_t hold = 0;
  for (const auto& s : p.req.gen.stop) hold = std::max(hold, s.size() - 1);
  size_t sent = 0, lp_sent = 0, lp_offset = 0;
  bool gone = false, timed_out = false;
  // The logprobs of tokens [lp_sent, end) for the next chunk; null when not asked.
  auto take_logprobs = [&](const std::vector<generate::TokenLogprob>& lp) {
    if (!p.req.logprobs) return Json();
    const std::span<const generate::TokenLogprob> part(lp.data() + lp_sent, lp.size() - lp_sent);
    Json j = logprobs_json(ctx, p, part, lp_offset);
    lp_offset += logprobs_text_size(ctx, part);
    lp_sent = lp.size();
    return j;
  };
  generate::GenerateOptions o = p.req.gen;
  o.seed += uint64_t(index);
  generate::Generation g;
  try {
    if (!emit(dump(chunk(ctx, p, "", nullptr, true, index)))) return Outcome::gone;
    g = generate::generate(
        ctx.mind.model(), ctx.mind.tokenizer(), p.ids, o, [&](const generate::Generation& so_far) {
          if (Clock::now() > deadline) {
            timed_out = true;
            return false;
          }
          const std::string_view text = so_far.text;
          const size_t n = stable_length(text, hold);
          if (n > sent) {
            const Json lp = take_logprobs(so_far.logprobs);
            if (!emit(
                    dump(chunk(ctx, p, text.substr(sent, n - sent), nullptr, false, index, lp)))) {
              gone = true;  // stop generating for a client that left
              return false;
            }
            sent = n;
          } else if (!alive()) {
            gone = true;
            return false;
          }
          return true;
        });
  } catch (const std::exception& e) {
    const bool model = dynamic_cast<const ModelError*>(&e) != nullptr;  // 500, naming the model
    const int status = !model && dynamic_cast<const Error*>(&e) ? 400 : 500;
    emit(dump(error_json(status, e.what(),
                         model           ? "model_error"
                         : status == 400 ? "invalid_request"
                                         : "internal_error")));
    return Outcome::failed;
  }
  if (gone) return Outcome::gone;
  if (timed_out) {
    emit(dump(error_json(504, "generation ran past the server's request timeout", "timeout")));
    return Outcome::failed;
  }
  // The rest of the text; `sent` is always a prefix of it (held-back bytes included).
  const std::string_view rest = g.text.size() > sent ? std::string_view(g.text).substr(sent) : "";
  if (!rest.empty() || lp_sent < g.logprobs.size()) {
    const Json lp = take_logprobs(g.logprobs);
    if (!emit(dump(chunk(ctx, p, rest, nullptr, false, index, lp)))) return Outcome::gone;
  }
  if (!emit(dump(chunk(ctx, p, "", g.finish_reason, false, index)))) return Outcome::gone;
  n_tokens = g.tokens.size();
  return Outcome::done;
}

// The n > 1 choices of a stream, each generated on its own thread; their events, interleaved as
// they come, are written by the calling thread.
Outcome stream_choices(Context& ctx, const Prepared& p, Clock::time_point deadline,
                       const std::function<bool(const std::string&)>& send,
                       const std::function<bool()>& alive, size_t& n_tokens) {
  std::mutex m;
  std::condition_variable cv;
  std::deque<std::string> queue;
  int running = p.req.n;
  bool stop = false;  // the client left or a choice failed: every choice stops
  std::vector<Outcome> outcomes(size_t(p.req.n), Outcome::done);
  std::vector<size_t> tokens(size_t(p.req.n), 0);
  std::vector<std::thread> threads;
  for (int i = 0; i < p.req.n; ++i)
    threads.emplace_back([&, i] {
      auto emit = [&](const std::string& event) {
        std::lock_guard<std::mutex> lock(m);
        if (stop) return false;
        queue.push_back(event);
        cv.notify_one();
        return true;
      };
      // The writing thread probes the client; a choice only learns that it left.
      auto not_stopped = [&] {
        std::lock_guard<std::mutex> lock(m);
        return !stop;
      };
      Outcome o = Outcome::failed;
      try {  // nothing may escape a thread
        o = stream_choice(ctx, p, i, deadline, emit, not_stopped, tokens[size_t(i)]);
      } catch (...) {
        try {
          emit(dump(error_json(500, "internal error while streaming", "internal_error")));
        } catch (...) {
        }
      }
      std::lock_guard<std::mutex> lock(m);
      outcomes[size_t(i)] = o;
      if (o == Outcome::failed) stop = true;
      --running;
      cv.notify_one();
    });
  bool gone = false;
  for (;;) {
    std::unique_lock<std::mutex> lock(m);
    // Nothing to send for a while (text held back): probe the client meanwhile.
    if (!cv.wait_for(lock, kProbeEvery, [&] { return !queue.empty() || running == 0; })) {
      lock.unlock();
      if (!gone && !alive()) {
        gone = true;
        const std::lock_guard<std::mutex> l(m);
        stop = true;
      }
      continue;
    }
    if (queue.empty()) break;
    const std::string event = std::move(queue.front());
    queue.pop_front();
    lock.unlock();
    if (!gone && !send(event)) {
      gone = true;
      const std::lock_guard<std::mutex> l(m);
      stop = true;
    }
  }
  for (auto& t : threads) t.join();
  if (gone) return Outcome::gone;
  for (const Outcome o : outcomes)
    if (o != Outcome::done) return Outcome::failed;
  for (const size_t t : tokens) n_tokens += t;
  return Outcome::done;
}

}  // namespace

void answer_stream(Context& ctx, std::shared_ptr<const Prepared> p, Slots::Lease lease,
                   std::chrono::steady_clock::time_point start, httplib::Response& res) {
  // The provider runs after this handler returns, on the same connection thread; it owns the
  // worker slot until the stream ends.
  auto held = std::make_shared<Slots::Lease>(std::move(lease));
  res.set_header("Cache-Control", "no-cache");
  res.set_header("X-Accel-Buffering", "no");  // proxies (nginx) pass events through unbuffered
  res.set_chunked_content_provider(
      "text/event-stream", [&ctx, p, held, start](size_t, httplib::DataSink& sink) {
        auto last = Clock::now();
        auto send = [&](const std::string& data) {
          const std::string event = "data: " + data + "\n\n";
          last = Clock::now();
          return sink.write(event.data(), event.size());
        };
        // A client that closed the connection is only seen by writing to it: an SSE comment
        // (ignored by every client) at most every kProbeEvery while no text goes out.
        auto alive = [&] {
          if (Clock::now() - last < kProbeEvery) return true;
          last = Clock::now();
          return sink.is_writable() && sink.write(":\n\n", 3);
        };
        const auto deadline = ctx.deadline(start);
        size_t n_tokens = 0;
        // Nothing may escape a content provider: it runs outside the handler's guard (the choices
        // catch their own errors and send them as events).
        const Outcome o = p->req.n == 1 ? stream_choice(ctx, *p, 0, deadline, send, alive, n_tokens)
                                        : stream_choices(ctx, *p, deadline, send, alive, n_tokens);
        if (o == Outcome::gone) return false;
        if (o == Outcome::done && p->req.include_usage) {
          Json u = head(ctx, *p, p->req.chat ? "chat.completion.chunk" : "text_completion");
          u["choices"] = Json::array();
          u["usage"] = usage_json(*p, n_tokens);
          if (!send(dump(u))) return false;
        }
        held->release();  // before the last event: a client holding [DONE] finds the slot free
        send("[DONE]");
        sink.done();
        return true;
      });
}

}  // namespace meadow::server
