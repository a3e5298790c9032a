// The OpenAI-compatible HTTP server (`meadow-mind serve`): chat and text completions (block
// diffusion or causal generation, meadow/runtime/generate.hpp), the decision endpoint
// (meadow/mind.hpp), model listing and a health check.
//
//   meadow::server::Server s({.model = "nano", .port = 8080});
//   s.bind();   // throws meadow::Error when the address is taken
//   s.run();    // until stop() (from another thread or a signal handler's thread)
//
// Every request is stateless: the model is loaded once and read-only, so several replicas
// behind a load balancer answer alike. At most `workers` requests run model passes at once,
// at most `queue` more wait (first come, first served) up to `timeout_s`; beyond that the
// answer is 503 with an OpenAI-style JSON error body. Connections wait for their requests in
// an event loop, not in threads: slow or idle clients cannot starve the others.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace meadow::server {

struct ServerOptions {
  std::string model;  // NAME or PATH (meadow::resolve_model); "" = the default model
  std::string lora;   // a LoRA adapter GGUF on top of the model; "" for none
  std::string host = "127.0.0.1";
  int port = 8080;  // 0: any free port (bind() returns it)
  int workers = 2;  // requests running model passes at once
  int queue = 16;   // requests waiting for a worker; beyond that 503
  // A request's budget: waiting for a worker plus generating. Past it a waiting request gets
  // 503, a generation stops (non-streamed: 504; streamed: an error event).
  double timeout_s = 120;
  // Larger bodies get 413, however they arrive (Content-Length, chunked, gzip or deflate): the
  // limit is on the decoded bytes the server holds. So request bodies take at most
  // (max_body_bytes + 64 KiB) x max(32, workers + queue + 16) at once (the worker threads;
  // 36 MiB with the defaults), and a connection still waiting for its request a few hundred
  // bytes (up to 1,000 of them). Measured: a 64 MiB chunked body and a gzip of 200 MiB each
  // moved the server's resident memory by under 4 MB (tests/server/hostile_clients_test.cpp).
  size_t max_body_bytes = 1 << 20;
  // A request's head and body must arrive within this many seconds of its first byte (408
  // otherwise); a connection waiting for its request holds no worker thread meanwhile.
  double read_timeout_s = 10;
  int max_tokens_limit = 4096;  // a request's max_tokens above this: 400
  // An answer's length when the request gives no max_tokens (OpenAI's "up to the context" would
  // let one request hold a worker for minutes on a large model).
  int default_max_tokens = 256;
  int threads = 0;  // threads per model pass; 0 = the mind's auto choice
  // /v1/decide keeps each decision table's encoded prefix (K/V) for reuse, least recently used
  // out past this many bytes.
  size_t decide_cache_bytes = size_t(256) << 20;
  std::string model_id;  // the name /v1/models reports; "" = the file name's stem
  bool log = true;       // one stderr line per request
};

class Server {
 public:
  // Loads the model. Throws meadow::Error (no model, bad options).
  explicit Server(ServerOptions opts);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds host:port (port 0: a free one) and returns the port. Throws meadow::Error.
  int bind();
  // Serves until stop(); returns false if the listening socket failed.
  bool run();
  // Stops run() (thread-safe); requests in flight are cut.
  void stop();

  const std::string& model_path() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace meadow::server
