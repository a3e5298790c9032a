// Request bodies checked field by field (server/request.hpp).
#include "server/request.hpp"

#include <algorithm>
#include <cmath>

#include "meadow/error.hpp"
#include "server/json_errors.hpp"
#include "util/json_parse.hpp"
#include "util/printable.hpp"

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
bool too_deep(const std::string& text, size_t max_depth) {
  size_t depth = 0;
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
    } else if ((c == ']' || c == '}') && depth > 0) {
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
    std::string r;
    try {
      r = generate::chat_role(role->get<std::string>());  // the Python package's check too
    } catch (const Error& e) {
      throw HttpError(400, where + ": " + e.what(), "invalid_value", "messages");
    }
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
  if (s->size() > size_t(generate::kMaxStops))  // before reading a huge list
    throw HttpError(400, "'stop' holds at most " + std::to_string(generate::kMaxStops) + " strings",
                    "invalid_value", "stop");
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

// An OpenAI function definition: {"type": "function", "function": {"name", "description",
// "parameters": {"type": "object", "properties": {...}}}}; the properties, in order, are the
// scaffold's arguments.
generate::Tool read_tool(const Json& t, size_t i) {
  const std::string where = "tools[" + std::to_string(i) + "]";
  auto bad = [&](const std::string& what, const char* code = "invalid_value") {
    return HttpError(400, where + ": " + what, code, "tools");
  };
  if (!t.is_object()) throw bad("must be an object", "invalid_type");
  const auto type = t.find("type");
  if (type != t.end() && !(type->is_string() && *type == "function"))
    throw bad("only tools of type \"function\" are supported");
  const auto f = t.find("function");
  if (f == t.end() || !f->is_object()) throw bad("needs a 'function' object", "missing_field");
  const auto name = f->find("name");
  if (name == f->end() || !name->is_string())
    throw bad("needs a string function 'name'", "missing_field");
  generate::Tool tool;
  tool.name = name->get<std::string>();
  if (tool.name.empty() || tool.name.size() > 64 ||
      tool.name.find_first_not_of(
          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != std::string::npos)
    throw bad("a function name is 1 to 64 letters, digits, '_' or '-'");
  if (const auto d = f->find("description"); d != f->end() && !d->is_null()) {
    if (!d->is_string()) throw bad("'description' must be a string", "invalid_type");
    tool.description = d->get<std::string>();
  }
  const auto params = f->find("parameters");
  if (params != f->end() && !params->is_null()) {
    if (!params->is_object())
      throw bad("'parameters' must be a JSON schema object", "invalid_type");
    const auto props = params->find("properties");
    if (props != params->end() && !props->is_null()) {
      if (!props->is_object())
        throw bad("'parameters.properties' must be an object", "invalid_type");
      for (auto it = props->begin(); it != props->end(); ++it) tool.arguments.push_back(it.key());
    }
  }
  if (tool.arguments.empty())
    throw bad("function '" + tool.name +
              "' has no parameters: a tool call infills argument values, at least one");
  if (tool.arguments.size() > 16) throw bad("a function takes at most 16 parameters here");
  return tool;
}

// tools + tool_choice: "none" answers in text; "auto" and "required" let the model choose the
// tool (it always calls one); {"type": "function", "function": {"name": N}} calls N.
void read_tools(const Json& body, TextRequest& r) {
  const Json* tools = field(body, "tools");
  const Json* choice = field(body, "tool_choice");
  if (!tools) {
    if (choice) throw HttpError(400, "'tool_choice' needs 'tools'", "invalid_value", "tool_choice");
    return;
  }
  if (!tools->is_array()) wrong_type("tools", "a list of function definitions", *tools);
  if (tools->empty() || tools->size() > 26)
    throw HttpError(400, "'tools' must hold 1 to 26 functions", "invalid_value", "tools");
  for (size_t i = 0; i < tools->size(); ++i) {
    generate::Tool t = read_tool((*tools)[i], i);
    for (const auto& o : r.tools)
      if (o.name == t.name)
        throw HttpError(400, "'tools' names function '" + t.name + "' twice", "invalid_value",
                        "tools");
    r.tools.push_back(std::move(t));
  }
  r.call_tool = true;
  if (!choice) return;
  if (choice->is_string()) {
    const std::string c = choice->get<std::string>();
    if (c == "none")
      r.call_tool = false;
    else if (c != "auto" && c != "required")
      throw HttpError(400, "'tool_choice' must be \"none\", \"auto\", \"required\" or a function",
                      "invalid_value", "tool_choice");
    return;
  }
  if (!choice->is_object()) wrong_type("tool_choice", "a string or an object", *choice);
  const auto f = choice->find("function");
  const Json* name = nullptr;
  if (f != choice->end() && f->is_object())
    if (const auto it = f->find("name"); it != f->end()) name = &*it;
  if (!name || !name->is_string())
    throw HttpError(
        400,
        "'tool_choice' names a function as {\"type\": \"function\", \"function\": {\"name\": ...}}",
        "invalid_value", "tool_choice");
  r.tool_name = name->get<std::string>();
  if (std::none_of(r.tools.begin(), r.tools.end(),
                   [&](const generate::Tool& t) { return t.name == r.tool_name; }))
    throw HttpError(400, "'tool_choice' names '" + r.tool_name + "', which is not in 'tools'",
                    "invalid_value", "tool_choice");
}

}  // namespace

Json parse_body(const std::string& body) {
  // The one nesting limit of the JSON the product reads (util/json_parse.hpp).
  if (too_deep(body, util::kMaxJsonDepth))
    throw HttpError(400,
                    "the body nests deeper than " + std::to_string(util::kMaxJsonDepth) + " levels",
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
  g.temperature = opt_number(body, "temperature", 0, generate::kMaxTemperature).value_or(0);
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
  try {
    generate::check_stop(g.stop);  // the Python package's check too
  } catch (const Error& e) {
    throw HttpError(400, e.what(), "invalid_value", "stop");
  }
  r.n = int(opt_int(body, "n", 1, kMaxChoices).value_or(1));
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
  if (const Json* so = field(body, "stream_options")) {
    if (!so->is_object()) wrong_type("stream_options", "an object", *so);
    r.include_usage = opt_bool(*so, "include_usage").value_or(false);
  }
  r.choice = read_choice(body);
  if (chat) read_tools(body, r);
  if (r.call_tool && !r.choice.empty())
    throw HttpError(400, "'choice' and a tool call exclude each other", "invalid_value", "choice");
  if (r.call_tool && r.logprobs)
    throw HttpError(400, "a tool call has no logprobs", "unsupported_parameter", "logprobs");
  r.tool_value_tokens = int(opt_int(body, "tool_value_tokens", 1, 256).value_or(8));
  // Diffusion-specific (ignored by causal models, as the generate command does).
  g.block_size = int(opt_int(body, "block_size", 1, 4096).value_or(g.block_size));
  g.steps_per_block = int(opt_int(body, "steps", 0, 65536).value_or(0));
  g.threshold = opt_number(body, "threshold", 0, 1).value_or(0);
  if (auto c = opt_string(body, "confidence")) {
    try {
      g.confidence = generate::parse_confidence(*c);
    } catch (const Error& e) {
      throw HttpError(400, e.what(), "invalid_value", "confidence");
    }
  }
  return r;
}

}  // namespace meadow::server
