// `meadow-mind serve`: the OpenAI-compatible HTTP server (meadow/runtime/server.hpp).
//
//   meadow-mind serve --model PATH --port N [--host 127.0.0.1] [--workers N] [--queue N]
//                     [--timeout S] [--max-body BYTES] [--max-tokens-limit N]
//                     [--default-max-tokens N] [--threads N] [--decide-cache-mb N]
//                     [--model-id NAME] [--lora FILE] [--quiet]
//
// Prints "listening on http://HOST:PORT" on stdout once the socket is bound (--port 0: a free
// port, for scripts and tests); SIGINT or SIGTERM stops it cleanly (exit 0).
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <memory>
#include <thread>

#include "cli/commands.hpp"
#include "meadow/error.hpp"
#include "meadow/runtime/model.hpp"
#include "meadow/runtime/server.hpp"

namespace meadow::cli {
namespace {

// The write end of the stop pipe while a server runs. A signal handler can reach nothing else:
// this is the one piece of process-wide state, set and cleared by StopPipe.
std::atomic<int> g_stop_fd{-1};

extern "C" void on_stop_signal(int) {
  const int fd = g_stop_fd.load();
  if (fd >= 0) {
    const char c = 's';
    [[maybe_unused]] const auto n = ::write(fd, &c, 1);  // async-signal-safe
  }
}

// SIGINT/SIGTERM → one byte down a pipe → a thread that stops the server (stopping is not
// async-signal-safe). A handler rather than sigwait: OpenBLAS starts its threads before main,
// with the signals unblocked, so a blocked-signal scheme would still let one of them die by it.
class StopPipe {
 public:
  StopPipe() {
    if (::pipe2(fds_, O_CLOEXEC) != 0) throw Error("serve: cannot create a pipe");
    g_stop_fd.store(fds_[1]);
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
  }
  ~StopPipe() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
    g_stop_fd.store(-1);
    ::close(fds_[0]);
    ::close(fds_[1]);
  }
  StopPipe(const StopPipe&) = delete;
  StopPipe& operator=(const StopPipe&) = delete;
  // Blocks until a signal arrives or wake() is called.
  void wait() const {
    char c;
    while (::read(fds_[0], &c, 1) < 0 && errno == EINTR) {
    }
  }
  void wake() const { on_stop_signal(0); }

 private:
  int fds_[2];
  struct sigaction old_int_ {
  }, old_term_{};
};

void run_serve(const server::ServerOptions& o) {
  server::Server s(o);
  const int port = s.bind();
  std::printf("listening on http://%s:%d (model %s)\n", o.host.c_str(), port,
              s.model_path().c_str());
  std::fflush(stdout);
  const StopPipe stop;
  std::thread waiter([&] {
    stop.wait();
    s.stop();
  });
  const bool ok = s.run();
  stop.wake();  // when the server ended by itself
  waiter.join();
  if (!ok) throw Exit{2};
}

}  // namespace

void add_serve_command(CLI::App& app) {
  auto o = std::make_shared<server::ServerOptions>();
  auto* c = app.add_subcommand("serve", "an OpenAI-compatible HTTP server for the model");
  add_model_option(c, o->model);
  add_lora_option(c, o->lora);
  c->add_option("--port", o->port, "TCP port (0: any free port)")
      ->required()
      ->check(CLI::Range(0, 65535));
  c->add_option("--host", o->host, "address to listen on")->capture_default_str();
  c->add_option("--workers", o->workers, "requests running model passes at once")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  c->add_option("--queue", o->queue, "requests waiting for a worker (beyond: 503)")
      ->capture_default_str()
      ->check(CLI::Range(0, 4096));
  c->add_option("--timeout", o->timeout_s, "seconds a request may wait and run")
      ->capture_default_str()
      ->check(CLI::Range(0.001, 86400.0));
  c->add_option("--max-body", o->max_body_bytes, "largest request body in bytes")
      ->capture_default_str()
      ->check(CLI::Range(size_t(1), size_t(1) << 30));
  c->add_option("--read-timeout", o->read_timeout_s,
                "seconds from a request's first byte to its last (beyond: 408)")
      ->capture_default_str()
      ->check(CLI::Range(0.001, 3600.0));
  c->add_option("--max-tokens-limit", o->max_tokens_limit, "largest max_tokens a request may ask")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 20));
  c->add_option("--default-max-tokens", o->default_max_tokens,
                "an answer's length when the request gives no max_tokens")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 20));
  c->add_option("--threads", o->threads, "threads per model pass (0: auto)")
      ->check(CLI::Range(0, model::kMaxThreads));
  c->add_option_function<size_t>(
       "--decide-cache-mb", [o](size_t mb) { o->decide_cache_bytes = mb << 20; },
       "MiB of decision-table prefixes /v1/decide keeps (default 256)")
      ->check(CLI::Range(size_t(0), size_t(1) << 20));
  c->add_option("--model-id", o->model_id, "the model name /v1/models reports");
  c->add_flag(
      "--quiet", [o](int64_t) { o->log = false; }, "no per-request log line on stderr");
  c->callback([o] { run_serve(*o); });
}

}  // namespace meadow::cli
