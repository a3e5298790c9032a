// Router (server/routes.hpp): registration with httplib, and the methods each path allows.
#include "server/routes.hpp"

namespace meadow::server {

void Router::get(const std::string& pattern, httplib::Server::Handler h) {
  http_.Get(pattern, std::move(h));
  methods_.emplace_back(std::regex(pattern), "GET");
}

void Router::post(const std::string& pattern, httplib::Server::Handler h) {
  http_.Post(pattern, std::move(h));
  methods_.emplace_back(std::regex(pattern), "POST");
}

std::string Router::allowed(const std::string& path) const {
  std::string out;
  for (const auto& [re, method] : methods_) {
    if (!std::regex_match(path, re) || out.find(method) != std::string::npos) continue;
    out += (out.empty() ? "" : ", ") + method;
  }
  return out;
}

}  // namespace meadow::server
