// `meadow-mind serve`: the OpenAI-compatible HTTP server (meadow/server.hpp).
//
//   meadow-mind serve --model PATH --port N [--host 127.0.0.1] [--workers N] [--queue N]
//                     [--timeout S] [--max-body BYTES] [--max-tokens-limit N] [--threads N]
//                     [--model-id NAME] [--lora FILE] [--quiet]
//
// Prints "listening on http://HOST:PORT" on stdout once the socket is bound (--port 0: a free
// port, for scripts and tests); SIGINT or SIGTERM stops it cleanly.
#include <pthread.h>

#include <csignal>
#include <cstdio>
#include <memory>
#include <thread>

#include "cli/commands.hpp"
#include "meadow/server.hpp"

namespace meadow::cli {
namespace {

void run_serve(const server::ServerOptions& o) {
  // The signals are taken by one thread through sigwait, never by a handler: stopping the
  // server is not async-signal-safe. Blocked before any server thread starts, so all inherit it.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGUSR1);  // ours: wakes the waiter when the server ends by itself
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  server::Server s(o);
  const int port = s.bind();
  std::printf("listening on http://%s:%d (model %s)\n", o.host.c_str(), port,
              s.model_path().c_str());
  std::fflush(stdout);
  std::thread waiter([&s, set] {
    int sig = 0;
    sigwait(&set, &sig);
    s.stop();
  });
  const bool ok = s.run();
  pthread_kill(waiter.native_handle(), SIGUSR1);
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
  c->add_option("--max-tokens-limit", o->max_tokens_limit, "largest max_tokens a request may ask")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 20));
  c->add_option("--threads", o->threads, "threads per model pass (0: auto)")
      ->check(CLI::Range(0, 256));
  c->add_option("--model-id", o->model_id, "the model name /v1/models reports");
  c->add_flag(
      "--quiet", [o](int64_t) { o->log = false; }, "no per-request log line on stderr");
  c->callback([o] { run_serve(*o); });
}

}  // namespace meadow::cli
