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

std::string code_for(int status) {
  switch (status) {
    case 404:
      return "not_found";
    case 405:
      return "method_not_allowed";
    case 408:
      return "request_timeout";
    case 411:
      return "length_required";
    case 413:
      return "payload_too_large";
    case 414:
      return "uri_too_long";
    case 415:
      return "unsupported_media_type";
    case 416:
      return "range_not_satisfiable";
    case 431:
      return "request_header_fields_too_large";
    case 501:
      return "not_implemented";
    case 503:
      return "server_busy";
    default:
      return status >= 500 ? "server_error" : "bad_request";
  }
}

namespace {

const char* reason(int status) {
  switch (status) {
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 411:
      return "Length Required";
    case 413:
      return "Payload Too Large";
    case 415:
      return "Unsupported Media Type";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 503:
      return "Service Unavailable";
    default:
      return status >= 500 ? "Server Error" : "Bad Request";
  }
}

}  // namespace

std::string error_response(int status, const std::string& message) {
  const std::string body = dump(error_json(status, util::printable(message), code_for(status)));
  return "HTTP/1.1 " + std::to_string(status) + " " + reason(status) +
         "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\nConnection: close\r\n\r\n" + body;
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
  } catch (const ModelError& e) {  // the model's fault, not the client's: names the model
    set_error(res, 500, e.what(), "model_error");
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
