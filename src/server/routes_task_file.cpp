// POST /v1/task_file/parse and /v1/task_file/write: task files (meadow/task_file.hpp) for the
// playground page, read and written by the same code as the CLI and the Python package.
//
//   parse {"text": TOML, "file": "name for messages"}
//     → {"name", "summary", "rule", "env", "options": [{"letter", "text", "action", "act"}],
//        "exam": [{"status", "expect"}], "perceiver": bool, "judge": bool}
//   write {"text": TOML this came from (optional: its perceiver and judge are kept), "name",
//          "rule", "options": [...], "exam": [...]} → {"toml"}
//
// A mistake in the file is a 400 whose message names the file, line and field.
#include <string>
#include <vector>

#include "meadow/error.hpp"
#include "meadow/task_file.hpp"
#include "server/context.hpp"
#include "server/guard.hpp"
#include "server/json_errors.hpp"
#include "server/request.hpp"
#include "server/routes.hpp"

namespace meadow::server {
namespace {

constexpr size_t kMaxTaskFile = size_t(1) << 20;

TaskSpec spec_of(const Json& body) {
  const std::string text = opt_string(body, "text").value_or("");
  if (text.size() > kMaxTaskFile)
    throw HttpError(413, "a task file is at most 1 MiB", "payload_too_large", "text");
  const std::string file = opt_string(body, "file").value_or("task file");
  try {
    return parse_task_spec(text, file);
  } catch (const Error& e) {
    throw HttpError(400, e.what(), "invalid_task_file", "text");
  }
}

char letter_of(const Json& j, const char* field) {
  const auto it = j.find(field);
  if (it == j.end() || !it->is_string() || it->get<std::string>().size() != 1)
    throw HttpError(400, std::string("each '") + field + "' must be one letter", "invalid_value",
                    field);
  return it->get<std::string>()[0];
}

// The words the page edits, onto a spec (the file's, or an empty one).
void put_words(TaskSpec& s, const Json& body) {
  s.name = required_string(body, "name");
  s.rule = required_string(body, "rule");
  const auto opts = body.find("options");
  if (opts == body.end() || !opts->is_array() || opts->empty())
    throw HttpError(400, "'options' must be a non-empty list", "invalid_value", "options");
  std::vector<Option> options;
  for (size_t i = 0; i < opts->size(); ++i) {
    const Json& o = (*opts)[i];
    if (!o.is_object()) throw HttpError(400, "each option is an object", "invalid_type", "options");
    Option opt;
    opt.letter = letter_of(o, "letter");
    opt.text = required_string(o, "text");
    opt.act = opt_string(o, "act").value_or("");
    // The file's action for this letter when there is one, else the option's index.
    opt.action = {double(i)};
    for (const auto& old : s.options)
      if (old.letter == opt.letter) opt.action = old.action;
    if (const auto a = o.find("action"); a != o.end() && a->is_number())
      opt.action = {a->get<double>()};
    options.push_back(std::move(opt));
  }
  s.options = std::move(options);
  s.exam.clear();
  if (const auto ex = body.find("exam"); ex != body.end()) {
    if (!ex->is_array()) throw HttpError(400, "'exam' must be a list", "invalid_type", "exam");
    for (const Json& e : *ex) {
      if (!e.is_object())
        throw HttpError(400, "each exam item is an object", "invalid_type", "exam");
      s.exam.push_back({required_string(e, "status"), letter_of(e, "expect")});
    }
  }
}

Json words_json(const TaskSpec& s) {
  Json options = Json::array();
  for (const auto& o : s.options)
    options.push_back({{"letter", std::string(1, o.letter)},
                       {"text", o.text},
                       {"action", o.action},
                       {"act", o.act}});
  Json exam = Json::array();
  for (const auto& e : s.exam)
    exam.push_back({{"status", e.status}, {"expect", std::string(1, e.expected)}});
  return {{"name", s.name},
          {"summary", s.summary},
          {"rule", s.rule},
          {"env", s.env_id},
          {"options", options},
          {"exam", exam},
          {"perceiver", s.perceiver.has_value()},
          {"judge", s.judge.has_conditions()}};
}

}  // namespace

void add_task_file_routes(Router& router, Context&) {
  router.post("/v1/task_file/parse", guard([](const httplib::Request& q, httplib::Response& r) {
                r.set_content(dump(words_json(spec_of(parse_body(q.body)))), "application/json");
              }));
  router.post("/v1/task_file/write", guard([](const httplib::Request& q, httplib::Response& r) {
                const Json body = parse_body(q.body);
                TaskSpec s =
                    opt_string(body, "text").value_or("").empty() ? TaskSpec{} : spec_of(body);
                put_words(s, body);
                std::string toml;
                try {
                  toml = task_spec_toml(s);
                  parse_task_spec(toml, "the written file");  // what the page saves reads back
                } catch (const Error& e) {
                  throw HttpError(400, e.what(), "invalid_value");
                }
                r.set_content(dump(Json{{"toml", toml}}), "application/json");
              }));
}

}  // namespace meadow::server
