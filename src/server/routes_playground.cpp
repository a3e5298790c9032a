// GET / and GET /playground/NAME: the playground page (src/server/playground/), a place to
// write a rule and watch the decision as you type. Its files are in the binary; its scripts
// only call this server's routes, by relative URLs, so it works behind a proxy under any path.
#include <string>

#include "server/context.hpp"
#include "server/guard.hpp"
#include "server/json_errors.hpp"
#include "server/playground_files.hpp"
#include "server/routes.hpp"

namespace meadow::server {
namespace {

std::string content_type(std::string_view name) {
  auto ends = [&](std::string_view ext) {
    return name.size() >= ext.size() && name.substr(name.size() - ext.size()) == ext;
  };
  if (ends(".html")) return "text/html; charset=utf-8";
  if (ends(".css")) return "text/css; charset=utf-8";
  if (ends(".js")) return "text/javascript; charset=utf-8";
  return "application/octet-stream";
}

void send(httplib::Response& res, std::string_view name) {
  const util::EmbeddedFile* f = util::find_embedded(playground_files(), name);
  if (f == nullptr)
    throw HttpError(404, "no playground file '" + std::string(name) + "'", "not_found");
  res.set_content(std::string(f->bytes), content_type(name));
  // Only this server's own scripts and styles; nothing from elsewhere.
  res.set_header("Content-Security-Policy",
                 "default-src 'self'; img-src 'self' blob: data:; object-src 'none'");
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_header("Cache-Control", "no-cache");
}

}  // namespace

void add_playground_routes(Router& router, Context&) {
  router.get(
      "/", guard([](const httplib::Request&, httplib::Response& res) { send(res, "index.html"); }));
  router.get(R"(/playground/([a-z_]+\.(css|js)))",
             guard([](const httplib::Request& req, httplib::Response& res) {
               send(res, std::string(req.matches[1]));
             }));
}

}  // namespace meadow::server
