// Request bodies checked field by field (server/request.hpp).
#include "server/request.hpp"

#include <cmath>

#include "meadow/error.hpp"
#include "server/json_errors.hpp"

namespace meadow::server {
namespace {

const char* type_name(const Json& v) {
  if (v.is_string()) return "a string";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number()) return "a number";
  if (v.is_array()) return "an array";
  if (v.is_object()) return "an object";
  return "null";
}

[[noreturn]] void wrong_type(const char* key, const char* want, const Json& got) {
  throw HttpError(400, std::string("'") + key + "' must be " + want + ", not " + type_name(got),
                  "invalid_type", key);
}

const Json* field(const Json& body, const char* key) {
  auto it = body.find(key);
  if (it == body.end() || it->is_null()) return nullptr;
  return &*it;
}

// Nesting depth of the text's containers, counted outside strings, so a hostile body is
// refused before nlohmann builds it.
bool too_deep(const std::string& text, int max_depth) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

std::string content_text(const Json& content, size_t index) {
  const std::string where = "messages[" + std::to_string(index) + "].content";
  if (content.is_null()) return "";
  if (content.is_string()) return content.get<std::string>();
  if (!content.is_array())
    throw HttpError(400, where + " must be a string, a list of content parts or null",
                    "invalid_type", "messages");
  std::string text;
  for (const auto& part : content) {
    if (!part.is_object())
      throw HttpError(400, where + ": each content part must be an object", "invalid_type",
                      "messages");
    const auto type = part.find("type");
    if (type == part.end() || !type->is_string())
      throw HttpError(400, where + ": a content part needs a string 'type'", "missing_field",
                      "messages");
    if (*type != "text")
      throw HttpError(400,
                      where + ": content parts of type '" + type->get<std::string>() +
                          "' are not supported (text only)",
                      "unsupported_content", "messages");
    const auto t = part.find("text");
    if (t == part.end() || !t->is_string())
      throw HttpError(400, where + ": a text part needs a string 'text'", "missing_field",
                      "messages");
    text += t->get<std::string>();  // OpenAI joins a message's text parts as they come
  }
  return text;
}

std::vector<ChatMessage> read_messages(const Json& body) {
  const Json* m = field(body, "messages");
  if (!m) throw HttpError(400, "'messages' is required", "missing_field", "messages");
  if (!m->is_array()) wrong_type("messages", "an array", *m);
  if (m->empty()) throw HttpError(400, "'messages' must not be empty", "invalid_value", "messages");
  std::vector<ChatMessage> out;
  for (size_t i = 0; i < m->size(); ++i) {
    const Json& msg = (*m)[i];
    const std::string where = "messages[" + std::to_string(i) + "]";
    if (!msg.is_object())
      throw HttpError(400, where + " must be an object", "invalid_type", "messages");
    const auto role = msg.find("role");
    if (role == msg.end() || !role->is_string())
      throw HttpError(400, where + " needs a string 'role'", "missing_field", "messages");
    std::string r = role->get<std::string>();
    if (r == "developer") r = "system";  // OpenAI's newer name for the system role
    if (r != "system" && r != "user" && r != "assistant" && r != "tool")
      throw HttpError(400, where + ": unknown role '" + role->get<std::string>() + "'",
                      "invalid_value", "messages");
    const auto content = msg.find("content");
    if (content == msg.end() && r != "assistant")
      throw HttpError(400, where + " needs 'content'", "missing_field", "messages");
    out.push_back({r, content == msg.end() ? "" : content_text(*content, i)});
  }
  return out;
}

std::vector<std::string> read_stop(const Json& body) {
  const Json* s = field(body, "stop");
  if (!s) return {};
  if (s->is_string()) return {s->get<std::string>()};
  if (!s->is_array()) wrong_type("stop", "a string or a list of strings", *s);
  if (s->size() > 16)
    throw HttpError(400, "'stop' holds at most 16 strings", "invalid_value", "stop");
  std::vector<std::string> out;
  for (const auto& v : *s) {
    if (!v.is_string()) wrong_type("stop", "a string or a list of strings", v);
    out.push_back(v.get<std::string>());
  }
  return out;
}

std::vector<std::string> read_choice(const Json& body) {
  const char* key = field(body, "choice") ? "choice" : "guided_choice";
  const Json* c = field(body, key);
  if (!c) return {};
  if (!c->is_array()) wrong_type(key, "a list of strings", *c);
  if (c->empty() || c->size() > 64)
    throw HttpError(400, std::string("'") + key + "' must hold 1 to 64 strings", "invalid_value",
                    key);
  std::vector<std::string> out;
  for (const auto& v : *c) {
    if (!v.is_string()) wrong_type(key, "a list of strings", v);
    if (v.get_ref<const std::string&>().empty() || v.get_ref<const std::string&>().size() > 1024)
      throw HttpError(400, std::string("'") + key + "' strings must hold 1 to 1024 bytes",
                      "invalid_value", key);
    out.push_back(v.get<std::string>());
  }
  return out;
}

std::string read_prompt(const Json& body) {
  const Json* p = field(body, "prompt");
  if (!p) throw HttpError(400, "'prompt' is required", "missing_field", "prompt");
  std::string text;
  if (p->is_string()) {
    text = p->get<std::string>();
  } else if (p->is_array() && p->size() == 1 && (*p)[0].is_string()) {
    text = (*p)[0].get<std::string>();
  } else {
    throw HttpError(400, "'prompt' must be a string (or a list of exactly one string)",
                    "invalid_type", "prompt");
  }
  if (text.empty()) throw HttpError(400, "'prompt' is empty", "invalid_value", "prompt");
  return text;
}

}  // namespace

Json parse_body(const std::string& body) {
  if (too_deep(body, kMaxJsonDepth))
    throw HttpError(400, "the body nests deeper than " + std::to_string(kMaxJsonDepth) + " levels",
                    "invalid_json");
  Json j = Json::parse(body, nullptr, false);
  if (j.is_discarded()) throw HttpError(400, "the body is not valid JSON", "invalid_json");
  if (!j.is_object()) throw HttpError(400, "the body must be a JSON object", "invalid_json");
  return j;
}

std::optional<std::string> opt_string(const Json& body, const char* key) {
  const Json* v = field(body, key);
  if (!v) return std::nullopt;
  if (!v->is_string()) wrong_type(key, "a string", *v);
  return v->get<std::string>();
}

std::string required_string(const Json& body, const char* key) {
  auto s = opt_string(body, key);
  if (!s) throw HttpError(400, std::string("'") + key + "' is required", "missing_field", key);
  return *s;
}

std::optional<double> opt_number(const Json& body, const char* key, double lo, double hi) {
  const Json* v = field(body, key);
  if (!v) return std::nullopt;
  if (!v->is_number()) wrong_type(key, "a number", *v);
  const double x = v->get<double>();
  if (!(x >= lo && x <= hi))  // NaN fails too
    throw HttpError(400,
                    std::string("'") + key + "' must be in [" + std::to_string(lo) + ", " +
                        std::to_string(hi) + "]",
                    "invalid_value", key);
  return x;
}

std::optional<int64_t> opt_int(const Json& body, const char* key, int64_t lo, int64_t hi) {
  const Json* v = field(body, key);
  if (!v) return std::nullopt;
  if (!v->is_number_integer()) wrong_type(key, "an integer", *v);
  if (v->is_number_unsigned() && v->get<uint64_t>() > uint64_t(INT64_MAX))
    throw HttpError(400, std::string("'") + key + "' is out of range", "invalid_value", key);
  const int64_t x = v->get<int64_t>();
  if (x < lo || x > hi)
    throw HttpError(400,
                    std::string("'") + key + "' must be in [" + std::to_string(lo) + ", " +
                        std::to_string(hi) + "]",
                    "invalid_value", key);
  return x;
}

std::optional<bool> opt_bool(const Json& body, const char* key) {
  const Json* v = field(body, key);
  if (!v) return std::nullopt;
  if (!v->is_boolean()) wrong_type(key, "a boolean", *v);
  return v->get<bool>();
}

TextRequest parse_text_request(const Json& body, bool chat, int max_tokens_limit) {
  TextRequest r;
  r.chat = chat;
  if (chat)
    r.messages = read_messages(body);
  else
    r.prompt = read_prompt(body);
  opt_string(body, "model");  // any model name is accepted: the server serves one model
  auto& g = r.gen;
  g.temperature = opt_number(body, "temperature", 0, 2).value_or(0);
  g.top_p = opt_number(body, "top_p", 0, 1).value_or(1);
  if (!(g.top_p > 0)) throw HttpError(400, "'top_p' must be in (0, 1]", "invalid_value", "top_p");
  auto max_tokens = opt_int(body, "max_tokens", 1, max_tokens_limit);
  if (!max_tokens) max_tokens = opt_int(body, "max_completion_tokens", 1, max_tokens_limit);
  if (max_tokens) r.max_tokens = int(*max_tokens);
  // Any 64-bit integer: the bits seed the generator as they are.
  if (const Json* s = field(body, "seed")) {
    if (!s->is_number_integer()) wrong_type("seed", "an integer", *s);
    g.seed = s->is_number_unsigned() ? s->get<uint64_t>() : uint64_t(s->get<int64_t>());
  }
  g.stop = read_stop(body);
  for (const auto& s : g.stop)
    if (s.empty())
      throw HttpError(400, "'stop' strings must not be empty", "invalid_value", "stop");
  if (opt_int(body, "n", 1, 1000).value_or(1) != 1)
    throw HttpError(400, "'n' must be 1: one choice per request", "invalid_value", "n");
  r.stream = opt_bool(body, "stream").value_or(false);
  if (chat) {
    r.logprobs = opt_bool(body, "logprobs").value_or(false);
    r.top_logprobs = int(opt_int(body, "top_logprobs", 0, 20).value_or(0));
    if (r.top_logprobs > 0 && !r.logprobs)
      throw HttpError(400, "'top_logprobs' needs 'logprobs': true", "invalid_value",
                      "top_logprobs");
  } else if (auto n = opt_int(body, "logprobs", 0, 5)) {  // completions: an integer
    r.logprobs = true;
    r.top_logprobs = int(*n);
  }
  if (r.logprobs && r.stream)
    throw HttpError(400, "logprobs with stream: true are not supported yet",
                    "unsupported_parameter", "logprobs");
  if (const Json* so = field(body, "stream_options")) {
    if (!so->is_object()) wrong_type("stream_options", "an object", *so);
    r.include_usage = opt_bool(*so, "include_usage").value_or(false);
  }
  r.choice = read_choice(body);
  // Diffusion-specific (ignored by causal models, as the generate command does).
  g.block_size = int(opt_int(body, "block_size", 1, 4096).value_or(g.block_size));
  g.steps_per_block = int(opt_int(body, "steps", 0, 65536).value_or(0));
  g.threshold = opt_number(body, "threshold", 0, 1).value_or(0);
  if (auto c = opt_string(body, "confidence")) {
    try {
      g.confidence = diffusion::parse_confidence(*c);
    } catch (const Error& e) {
      throw HttpError(400, e.what(), "invalid_value", "confidence");
    }
  }
  return r;
}

}  // namespace meadow::server
