// What the server tests share: a server on a free loopback port, and a client's calls to it.
#pragma once

#include <httplib.h>
#include <zlib.h>

#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "meadow/runtime/server.hpp"

namespace meadow::server_test {

using nlohmann::json;

struct Reply {
  int status = 0;  // 0: no HTTP answer at all
  std::string body;
  json j;  // parsed body, or discarded
};

// A running server on a free loopback port, stopped and joined when destroyed.
class Running {
 public:
  explicit Running(meadow::server::ServerOptions o) : s_(std::move(o)) {
    port_ = s_.bind();
    thread_ = std::thread([this] { s_.run(); });
  }
  ~Running() {
    s_.stop();
    thread_.join();
  }
  int port() const { return port_; }

 private:
  meadow::server::Server s_;
  int port_ = 0;
  std::thread thread_;
};

inline Reply call(int port, const std::string& method, const std::string& path,
                  const std::string& body = "") {
  httplib::Client c("127.0.0.1", port);
  // Generous: under the sanitizers and a loaded machine a long generation takes minutes.
  c.set_read_timeout(300, 0);
  c.set_connection_timeout(10, 0);
  httplib::Result r =
      method == "GET" ? c.Get(path.c_str()) : c.Post(path.c_str(), body, "application/json");
  Reply out;
  if (!r) {
    out.body = "no HTTP reply: " + httplib::to_string(r.error());
    return out;
  }
  out.status = r->status;
  out.body = r->body;
  out.j = json::parse(r->body, nullptr, false);
  return out;
}

inline Reply post(int port, const std::string& path, const json& body) {
  return call(port, "POST", path, body.dump());
}

inline bool is_error_json(const Reply& r) {
  return !r.j.is_discarded() && r.j.contains("error") && r.j["error"].is_object() &&
         r.j["error"]["message"].is_string() && r.j["error"]["type"].is_string() &&
         r.j["error"]["code"].is_string();
}

inline meadow::server::ServerOptions options(const std::string& model) {
  meadow::server::ServerOptions o;
  o.model = model;
  o.port = 0;
  o.workers = 4;
  o.queue = 64;
  o.log = false;
  o.max_body_bytes = 64 * 1024;
  o.max_tokens_limit = 1 << 20;  // so a huge max_tokens reaches the context check
  o.model_id = "fixture";
  o.default_max_tokens = 16;  // mutated bodies that lose max_tokens stay quick
  return o;
}

inline json chat_body(const std::string& text, int max_tokens) {
  return {{"model", "fixture"},
          {"messages", {{{"role", "user"}, {"content", text}}}},
          {"max_tokens", max_tokens}};
}

// `data` deflated in one go: window_bits 15 + 16 for gzip, 15 for zlib (HTTP's "deflate").
inline std::string deflated(const std::string& data, int window_bits = 15 + 16) {
  z_stream z{};
  deflateInit2(&z, 9, Z_DEFLATED, window_bits, 9, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, uLong(data.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = uInt(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = uInt(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

}  // namespace meadow::server_test
