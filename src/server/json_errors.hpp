// Errors as OpenAI's API writes them: {"error": {"message", "type", "param", "code"}}, and the
// one exception type a route throws to answer with one.
#pragma once

#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace httplib {
struct Response;
}

namespace meadow::server {

// A request the server answers with `status` and an error body. Routes throw it; the server's
// exception handler writes it, so no route builds error bodies by hand.
// The message is made printable (control bytes and invalid UTF-8 escaped, util/printable.hpp):
// it quotes what clients sent, and must stay one line of text in logs and bodies.
struct HttpError : std::runtime_error {
  HttpError(int status, const std::string& message, std::string code, std::string param = "");
  int status;
  std::string code;   // machine-readable: "invalid_json", "missing_field", "server_busy", ...
  std::string param;  // the offending field, "" when none
};

// "invalid_request_error" for 4xx, "server_error" for 5xx (OpenAI's two families).
std::string error_type(int status);

// The body: {"error": {"message", "type", "param" (null when empty), "code"}}.
nlohmann::ordered_json error_json(int status, const std::string& message, const std::string& code,
                                  const std::string& param = "");

// Sets status, body and content type on the response.
void set_error(httplib::Response& res, int status, const std::string& message,
               const std::string& code, const std::string& param = "");

// The machine-readable code of an error the server answers by itself (no route ran): 404
// "not_found", 408 "request_timeout", 413 "payload_too_large", ...
std::string code_for(int status);

// A whole HTTP/1.1 response with the error body and "Connection: close", for answers written
// before or without httplib's parser (the connection front, a body that could not be read).
std::string error_response(int status, const std::string& message);

// A JSON value as a response body. Invalid UTF-8 (model text cut mid-character) is replaced,
// never thrown.
std::string dump(const nlohmann::ordered_json& j);

}  // namespace meadow::server
