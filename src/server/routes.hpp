// The routes, one file per group; server.cpp registers them all.
#pragma once

namespace httplib {
class Server;
}

namespace meadow::server {

struct Context;

// Handlers throw (HttpError, meadow::Error, anything); each is registered through guard()
// (server/guard.hpp), which turns whatever escapes into a JSON error response.
void add_text_routes(httplib::Server& http, Context& ctx);  // /v1/chat/completions, /v1/completions
void add_decide_route(httplib::Server& http, Context& ctx);  // /v1/decide
void add_info_routes(httplib::Server& http, Context& ctx);   // /health, /v1/models

}  // namespace meadow::server
