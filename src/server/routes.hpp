// The routes, one file per group; server.cpp registers them all through one Router, which
// also remembers each path's method so that a request with another method gets 405 (with
// "Allow"), not 404.
#pragma once

#include <httplib.h>

#include <regex>
#include <string>
#include <utility>
#include <vector>

namespace meadow::server {

struct Context;

class Router {
 public:
  explicit Router(httplib::Server& http) : http_(http) {}
  void get(const std::string& pattern, httplib::Server::Handler h);
  void post(const std::string& pattern, httplib::Server::Handler h);
  // The methods a path has routes for ("GET", "POST", "GET, POST"); "" when none.
  std::string allowed(const std::string& path) const;

 private:
  httplib::Server& http_;
  std::vector<std::pair<std::regex, std::string>> methods_;
};

// Handlers throw (HttpError, meadow::Error, anything); each is registered through guard()
// (server/guard.hpp), which turns whatever escapes into a JSON error response.
void add_text_routes(Router& r, Context& ctx);        // /v1/chat/completions, /v1/completions
void add_decide_route(Router& r, Context& ctx);       // /v1/decide
void add_info_routes(Router& r, Context& ctx);        // /health, /v1/models
void add_task_file_routes(Router& r, Context& ctx);   // /v1/task_file/parse, /v1/task_file/write
void add_playground_routes(Router& r, Context& ctx);  // /, /playground/NAME

}  // namespace meadow::server
