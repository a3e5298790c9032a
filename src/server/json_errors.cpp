// OpenAI-style error bodies (server/json_errors.hpp).
#include "server/json_errors.hpp"

#include <httplib.h>

#include <new>

#include "meadow/error.hpp"
#include "server/guard.hpp"
#include "util/printable.hpp"

namespace meadow::server {

HttpError::HttpError(int status, const std::string& message, std::string code, std::string param)
    : std::runtime_error(util::printable(message)),
      status(status),
      code(std::move(code)),
      param(std::move(param)) {}

std::string error_type(int status) {
  return status >= 500 ? "server_error" : "invalid_request_error";
}

nlohmann::ordered_json error_json(int status, const std::string& message, const std::string& code,
                                  const std::string& param) {
  return {{"error",
           {{"message", message},
            {"type", error_type(status)},
            {"param", param.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(param)},
            {"code", code}}}};
}

void set_error(httplib::Response& res, int status, const std::string& message,
               const std::string& code, const std::string& param) {
  res.status = status;
  res.set_content(dump(error_json(status, message, code, param)), "application/json");
}

std::string dump(const nlohmann::ordered_json& j) {
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

void answer_exception(httplib::Response& res, std::exception_ptr ep) {
  // A handler may have started a response; the error replaces it whole.
  res.headers.clear();
  try {
    std::rethrow_exception(ep);
  } catch (const HttpError& e) {
    set_error(res, e.status, e.what(), e.code, e.param);
  } catch (const Error& e) {
    set_error(res, 400, e.what(), "invalid_request");
  } catch (const std::bad_alloc&) {
    set_error(res, 503, "the server ran out of memory for this request", "out_of_memory");
  } catch (const std::exception& e) {
    set_error(res, 500, std::string("internal error: ") + e.what(), "internal_error");
  } catch (...) {
    set_error(res, 500, "internal error", "internal_error");
  }
}

}  // namespace meadow::server
