// The HTTP server (meadow/server.hpp): cpp-httplib with bounded threads, timeouts and a body
// limit, every route answering errors as OpenAI-style JSON.
#include "meadow/server.hpp"

#include <sys/socket.h>

#include <algorithm>
#include <cstdio>

#include "meadow/error.hpp"
#include "server/context.hpp"
#include "server/guard.hpp"
#include "server/json_errors.hpp"
#include "server/routes.hpp"

namespace meadow::server {
namespace {

// What httplib answers by itself (no route, body over the limit, unreadable request) gets the
// same JSON error body as the routes' own errors.
const char* code_for(int status) {
  switch (status) {
    case 404:
      return "not_found";
    case 405:
      return "method_not_allowed";
    case 408:
      return "request_timeout";
    case 413:
      return "payload_too_large";
    case 414:
      return "uri_too_long";
    case 416:
      return "range_not_satisfiable";
    default:
      return status >= 500 ? "server_error" : "bad_request";
  }
}

std::string message_for(int status, const httplib::Request& req) {
  switch (status) {
    case 404:
      return "no route " + req.method + " " + req.path;
    case 413:
      return "the request body is larger than the server's limit";
    default:
      return std::string("HTTP ") + std::to_string(status);
  }
}

// httplib listens with a backlog of 5 (compiled into Debian's library): a burst of clients
// connecting at once overflows it, and the kernel then drops their handshakes and requests
// (clients saw connections fail after a second). listen() again on the bound socket widens it.
class Http : public httplib::Server {
 public:
  void widen_backlog() { ::listen(svr_sock_, SOMAXCONN); }
};

// The request path as the log line shows it: httplib has percent-decoded it, so it may hold
// terminal control bytes (an ESC sequence would reach the operator's terminal); those become '?'.
std::string loggable(const std::string& path) {
  std::string out = path.substr(0, 200);
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return out;
}

}  // namespace

struct Server::Impl {
  explicit Impl(ServerOptions o) : ctx(std::move(o)) {}
  Context ctx;
  Http http;
  bool bound = false;
};

Server::Server(ServerOptions opts) : impl_(std::make_unique<Impl>(std::move(opts))) {
  Context& ctx = impl_->ctx;
  httplib::Server& http = impl_->http;
  // Connection threads: one per running or queued request plus room for health checks and
  // for refusing the rest with 503 (a refusal needs a thread to be written).
  const size_t threads = size_t(std::max(32, ctx.opts.workers + ctx.opts.queue + 16));
  http.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  http.set_payload_max_length(ctx.opts.max_body_bytes);
  // httplib writes headers and body separately; with Nagle's algorithm the body then waits for
  // the client's delayed ACK of the headers: 40 ms added to every answer (measured on /v1/decide).
  http.set_tcp_nodelay(true);
  // A client that stops sending or reading must not hold a thread for long.
  http.set_read_timeout(10, 0);
  http.set_write_timeout(30, 0);
  http.set_keep_alive_timeout(5);
  http.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (res.body.empty() && !res.content_provider_)
      set_error(res, res.status, message_for(res.status, req), code_for(res.status));
  });
  http.set_exception_handler([](const httplib::Request&, httplib::Response& res,
                                std::exception_ptr ep) { answer_exception(res, ep); });
  if (ctx.opts.log)
    http.set_logger([](const httplib::Request& req, const httplib::Response& res) {
      std::fprintf(stderr, "%s %s %d %zu\n", loggable(req.method).c_str(),
                   loggable(req.path).c_str(), res.status, req.body.size());
    });
  add_info_routes(http, ctx);
  add_text_routes(http, ctx);
  add_decide_route(http, ctx);
}

Server::~Server() {
  stop();
}

int Server::bind() {
  const auto& o = impl_->ctx.opts;
  int port = o.port;
  if (port == 0)
    port = impl_->http.bind_to_any_port(o.host);
  else if (!impl_->http.bind_to_port(o.host, port))
    port = -1;
  if (port <= 0)
    throw Error("serve: cannot listen on " + o.host + ":" + std::to_string(o.port) +
                " (in use, or not an address of this machine)");
  impl_->http.widen_backlog();
  impl_->bound = true;
  return port;
}

bool Server::run() {
  if (!impl_->bound) bind();
  return impl_->http.listen_after_bind();
}

void Server::stop() {
  if (impl_) impl_->http.stop();
}

const std::string& Server::model_path() const {
  return impl_->ctx.mind.model_path();
}

}  // namespace meadow::server
