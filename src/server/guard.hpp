// Every route handler runs inside guard(): whatever it throws becomes an OpenAI-style JSON
// error response on that request alone, so no input can take the server down.
#pragma once

#include <exception>
#include <utility>

#include <httplib.h>

namespace meadow::server {

// HttpError → its status; meadow::ModelError (a broken model: non-finite logits) → 500
// "model_error"; meadow::Error (bad input the lower layers caught) → 400; std::bad_alloc → 503;
// anything else → 500.
void answer_exception(httplib::Response& res, std::exception_ptr ep);

template <class F>
httplib::Server::Handler guard(F f) {
  return [f = std::move(f)](const httplib::Request& req, httplib::Response& res) {
    try {
      f(req, res);
    } catch (...) {
      answer_exception(res, std::current_exception());
    }
  };
}

}  // namespace meadow::server
