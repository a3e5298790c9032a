// POST /v1/decide: one decision pass, as `meadow-mind decide --json` answers it.
//
//   {"rule": "...", "options": {"A": "text", "B": "text"} | ["text", "text"], "state": "..."}
//   → {"letter", "probs": {letter: p}, "margin", "entropy", "coherence", "lat_ms", "model"}
//
// A server of a meadow-reader answers the same, with "coherence" null and "conditions": each
// condition it read, [{"letter", "text", "p"}] with P(holds) in this situation, so a client
// sees why the letter was chosen.
//
// Options as a list are lettered A, B, C... in order. The table is validated as the CLI
// validates it (meadow::validate), and decided with the same options, so the answers match.
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "meadow/error.hpp"
#include "meadow/task.hpp"
#include "server/context.hpp"
#include "server/guard.hpp"
#include "server/json_errors.hpp"
#include "server/request.hpp"
#include "server/routes.hpp"

namespace meadow::server {
namespace {

constexpr size_t kMaxOptions = 26;

std::vector<Option> read_options(const Json& body) {
  const auto it = body.find("options");
  if (it == body.end() || it->is_null())
    throw HttpError(400, "'options' is required", "missing_field", "options");
  if (!it->is_object() && !it->is_array())
    throw HttpError(400, "'options' must be an object {\"A\": \"text\"} or a list of texts",
                    "invalid_type", "options");
  if (it->empty()) throw HttpError(400, "'options' must not be empty", "invalid_value", "options");
  if (it->size() > kMaxOptions)
    throw HttpError(400, "'options' holds at most 26 options", "invalid_value", "options");
  std::vector<Option> out;
  size_t i = 0;
  for (auto o = it->begin(); o != it->end(); ++o, ++i) {
    if (!o->is_string())
      throw HttpError(400, "each option's text must be a string", "invalid_type", "options");
    Option opt;
    if (it->is_object()) {
      if (o.key().size() != 1)
        throw HttpError(400, "option letters are single characters, not '" + o.key() + "'",
                        "invalid_value", "options");
      opt.letter = o.key()[0];
    } else {
      opt.letter = char('A' + i);
    }
    opt.text = o->get<std::string>();
    opt.action = {double(i)};  // the option's index, as the decide command sets it
    out.push_back(std::move(opt));
  }
  return out;
}

// The decision from the server's table caches: a decoder's cached prefix, or a reader's reading
// and the mind's record of its decision.
Decision decide(Context& ctx, const Task& task, const std::string& state) {
  if (ctx.readings) {
    std::vector<reader::Option> options;
    for (const auto& o : task.options) options.push_back({o.letter, o.text});
    const auto reading = ctx.readings->get(task.rule, options);
    const reader::Reader& rd = *ctx.mind.reader();
    return reader_info(*reading, rd.decide(*reading, state, {.threads = ctx.threads}), state,
                       rd.encoder().config().n_layer);
  }
  std::vector<decision::Choice> choices;
  for (const auto& o : task.options) choices.push_back({o.letter, o.text});
  return ctx.deciders->get(task.rule, choices)->decide(state);
}

void handle(Context& ctx, const httplib::Request& req, httplib::Response& res) {
  const auto start = std::chrono::steady_clock::now();
  const Json body = parse_body(req.body);
  Task task;
  task.name = "decide";
  task.rule = required_string(body, "rule");
  task.options = read_options(body);
  const std::string state = required_string(body, "state");
  try {
    validate(task);
  } catch (const Error& e) {
    throw HttpError(400, e.what(), "invalid_value");
  }
  if (state.find_first_not_of(" \t\r\n") == std::string::npos)
    throw HttpError(400, "'state' is empty: give the situation sentence the rule is read against",
                    "invalid_value", "state");
  const Slots::Lease lease = ctx.admit(start);
  const Decision d = decide(ctx, task, state);
  Json probs = Json::object();
  for (const auto& [l, p] : d.probs) probs[std::string(1, l)] = p;
  Json out{{"letter", std::string(1, d.letter)},
           {"probs", probs},
           {"margin", d.margin},
           {"entropy", d.entropy},
           {"coherence", std::isnan(d.coherence) ? Json() : Json(d.coherence)},
           {"lat_ms", d.lat_ms},
           {"model", ctx.model_id}};
  if (ctx.readings) {
    Json conditions = Json::array();
    for (const ConditionP& c : d.conditions)
      conditions.push_back({{"letter", std::string(1, c.letter)}, {"text", c.text}, {"p", c.p}});
    out["conditions"] = std::move(conditions);
  }
  res.set_content(dump(out), "application/json");
}

}  // namespace

void add_decide_route(Router& router, Context& ctx) {
  router.post("/v1/decide", guard([&ctx](const httplib::Request& q, httplib::Response& r) {
                handle(ctx, q, r);
              }));
}

}  // namespace meadow::server
