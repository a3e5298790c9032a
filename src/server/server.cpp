// The HTTP server (meadow/runtime/server.hpp): cpp-httplib's request parser and routes behind our
// own connection front (server/front.hpp) and body reader (server/body.hpp), so that the limits on
// threads, time and memory hold whatever a client sends; every route answers errors as
// OpenAI-style JSON.
#include "meadow/runtime/server.hpp"

#include <sys/socket.h>

#include <algorithm>
#include <cstdio>
#include <functional>

#include "meadow/error.hpp"
#include "server/body.hpp"
#include "server/connection.hpp"
#include "server/context.hpp"
#include "server/front.hpp"
#include "server/guard.hpp"
#include "server/head_scan.hpp"
#include "server/json_errors.hpp"
#include "server/routes.hpp"

namespace meadow::server {
namespace {

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

// The request path as the log line shows it: httplib has percent-decoded it, so it may hold
// terminal control bytes (an ESC sequence would reach the operator's terminal); those become '?'.
std::string loggable(const std::string& path) {
  std::string out = path.substr(0, 200);
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return out;
}

// Runs each task at once on the calling thread: httplib's accept loop then hands every new
// socket straight to the front (Http::process_and_close_socket), which never blocks.
struct InlineQueue : httplib::TaskQueue {
  void enqueue(std::function<void()> fn) override { fn(); }
  void shutdown() override {}
};

// httplib's request parser and routes over our connections: the accept loop gives each socket
// to the front instead of a thread of its own, and the front calls serve() per request.
class Http : public httplib::Server {
 public:
  std::function<void(int)> on_accept;

  // httplib listens with a backlog of 5 (compiled into Debian's library): a burst of clients
  // connecting at once overflows it, and the kernel then drops their handshakes and requests
  // (clients saw connections fail after a second). listen() again on the bound socket widens it.
  void widen_backlog() { ::listen(svr_sock_, SOMAXCONN); }

  // One request: its head was parsed by httplib, its body is read here (server/body.hpp) under
  // the body limit, whatever its framing; then httplib routes it and writes the answer.
  bool serve(Connection& c, bool close_after, bool& closed, size_t max_body, bool log) {
    std::string method, path;
    try {
      return process_request(c, close_after, closed, [&](httplib::Request& req) {
        method = req.method;
        path = req.path;
        take_body(c, req, max_body);
      });
    } catch (const HttpError& e) {
      // The body could not be read: answer, and end the connection (its rest is unread).
      c.write_all(error_response(e.status, e.what()));
      if (log)
        std::fprintf(stderr, "%s %s %d -\n", loggable(method).c_str(), loggable(path).c_str(),
                     e.status);
      return false;
    }
  }

 private:
  bool process_and_close_socket(socket_t sock) override {
    on_accept(sock);
    return true;
  }

  static void take_body(Connection& c, httplib::Request& req, size_t max_body) {
    if (iequals(req.get_header_value("Expect"), "100-continue")) {
      req.headers.erase("Expect");
      c.write_all("HTTP/1.1 100 Continue\r\n\r\n");
    }
    const BodyFraming framing{req.get_header_value("Content-Length"),
                              req.get_header_value("Transfer-Encoding"),
                              req.get_header_value("Content-Encoding")};
    const ReadFn read = [&c](char* p, size_t n) -> size_t {
      const ssize_t k = c.read(p, n);
      if (k > 0) return size_t(k);
      if (c.timed_out())
        throw HttpError(408, "the request body did not arrive within the server's read timeout",
                        "request_timeout");
      return 0;
    };
    req.body = read_body(read, framing, max_body);
    // httplib must not read a body again: to it the request now carries none.
    req.headers.erase("Transfer-Encoding");
    req.headers.erase("Content-Encoding");
    req.headers.erase("Content-Length");
    req.headers.emplace("Content-Length", "0");
  }
};

// Only SO_REUSEADDR (a restarted server binds at once). httplib's default adds SO_REUSEPORT,
// with which a second server on the same port starts too and the kernel splits the clients
// between the two.
void reuse_address_only(socket_t sock) {
  const int yes = 1;
  ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
}

FrontOptions front_options(const ServerOptions& o) {
  FrontOptions f;
  // One per running or queued request, plus room for health checks and for refusing the rest
  // with 503 (a refusal needs a thread to be written).
  f.threads = std::max(32, o.workers + o.queue + 16);
  f.max_body = o.max_body_bytes;
  f.read_timeout =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.read_timeout_s));
  return f;
}

}  // namespace

struct Server::Impl {
  explicit Impl(ServerOptions o)
      : ctx(std::move(o)),
        router(http),
        front(front_options(ctx.opts), [this](Connection& c, bool close_after, bool& closed) {
          return http.serve(c, close_after, closed, ctx.opts.max_body_bytes, ctx.opts.log);
        }) {}
  Context ctx;
  Http http;
  Router router;
  Front front;
  bool bound = false;
};

Server::Server(ServerOptions opts) {
  if (!(opts.read_timeout_s > 0)) throw Error("serve: the read timeout must be positive");
  impl_ = std::make_unique<Impl>(std::move(opts));
  Context& ctx = impl_->ctx;
  Http& http = impl_->http;
  http.on_accept = [front = &impl_->front](int fd) { front->admit(fd); };
  http.new_task_queue = [] { return new InlineQueue; };
  http.set_socket_options(reuse_address_only);
  // httplib writes headers and body separately; with Nagle's algorithm the body then waits for
  // the client's delayed ACK of the headers: 40 ms added to every answer (measured on /v1/decide).
  http.set_tcp_nodelay(true);
  // The "Keep-Alive: timeout=T, max=N" header httplib writes says what the front does.
  const FrontOptions& f = impl_->front.options();
  http.set_keep_alive_timeout(
      std::chrono::duration_cast<std::chrono::seconds>(f.keep_alive).count());
  http.set_keep_alive_max_count(size_t(f.keep_alive_max));
  http.set_error_handler(
      [router = &impl_->router](const httplib::Request& req, httplib::Response& res) {
        // A path that exists under another method: 405 and what it allows, not 404.
        if (res.status == 404) {
          const std::string allow = router->allowed(req.path);
          // (A 404 from a route of this method, such as an unknown model id, stays a 404.)
          if (!allow.empty() && allow.find(req.method) == std::string::npos) {
            res.status = 405;
            res.set_header("Allow", allow);
            set_error(res, 405, req.method + " " + req.path + " is not a route; it takes " + allow,
                      code_for(405));
            return;
          }
        }
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
  add_info_routes(impl_->router, ctx);
  add_text_routes(impl_->router, ctx);
  add_decide_route(impl_->router, ctx);
  add_task_file_routes(impl_->router, ctx);
  add_playground_routes(impl_->router, ctx);
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
  if (!impl_) return;
  impl_->http.stop();
  impl_->front.stop();
}

const std::string& Server::model_path() const {
  return impl_->ctx.mind.model_path();
}

}  // namespace meadow::server
