// `decide` and `ai-prompt`: the mind's own commands (the tasks' commands live elsewhere).
//
//   meadow-mind decide --rule TEXT --option "A=TEXT" ... --state TEXT [--model PATH]
//                      [--lora FILE] [--json]
//                      [--no-cache] [--threads N] [--slot N]
// prints {"letter", "probs": {letter: p}, "lat_ms", "margin", "entropy", "coherence", "model"}
// with --json (DESIGN.md's stable hook), else one readable line. A meadow-reader file (a bert
// encoder with reader heads) decides in parts instead, and prints how it read the rule too
// (cli/reader_commands.cpp).
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/reader_cli.hpp"
#include "meadow/error.hpp"
#include "meadow/mind.hpp"
#include "meadow/runtime/model.hpp"

namespace meadow::cli {
namespace {

struct DecideArgs {
  std::string rule;
  std::vector<std::string> options;
  std::string state;
  std::string model;
  std::string lora;
  bool json = false;
  bool no_cache = false;
  int threads = 0;  // auto (MindOptions)
  int slot = 3;
  double exit_margin = 0;  // early exit off
  double float_recheck = DecideOptions{}.float_recheck;
};

// "A=push left" → option A. The letter is one character A..Z; the text may hold '='.
Option parse_option(const std::string& spec, size_t index) {
  const size_t eq = spec.find('=');
  if (eq != 1)
    throw Error("--option '" + spec + "': expected LETTER=TEXT, e.g. \"A=push the cart left\"");
  Option o;
  o.letter = spec[0];
  o.text = spec.substr(2);
  o.action = {double(index)};  // the option's index: decide has no environment
  return o;
}

// The model's path when it is a reader; nullopt otherwise, and when it does not resolve (Mind
// then says why).
std::optional<std::string> reader_path(const std::string& model) {
  try {
    std::string path = resolve_model(model);
    if (is_reader_model(path)) return path;
  } catch (const Error&) {
  }
  return std::nullopt;
}

void run_decide(const DecideArgs& a) {
  Task task;
  task.name = "decide";
  task.rule = a.rule;
  for (size_t i = 0; i < a.options.size(); ++i)
    task.options.push_back(parse_option(a.options[i], i));
  validate(task);  // bad input fails here, before any model is loaded
  if (a.state.find_first_not_of(" \t\r\n") == std::string::npos)
    throw Error("--state is empty: give the situation sentence the rule is read against");
  if (const auto path = reader_path(a.model)) {
    if (!a.lora.empty()) throw Error("--lora: a meadow-reader file takes no adapter");
    return decide_with_reader(*path, a.rule, a.options, a.state, a.threads, a.json);
  }
  MindOptions mo;
  mo.decide.threads = a.threads;
  mo.decide.answer_slot = a.slot;
  mo.decide.prefix_cache = !a.no_cache;
  mo.lora = a.lora;
  mo.decide.exit_margin = a.exit_margin;
  mo.decide.float_recheck = a.float_recheck;
  Mind mind(a.model, mo);
  const Decision d = mind.decide_status(task, a.state);
  if (a.json) {
    nlohmann::json probs = nlohmann::json::object();
    for (const auto& [l, p] : d.probs) probs[std::string(1, l)] = p;
    nlohmann::json j{
        {"letter", std::string(1, d.letter)},
        {"probs", probs},
        {"lat_ms", d.lat_ms},
        {"margin", d.margin},
        {"entropy", d.entropy},
        {"coherence", std::isnan(d.coherence) ? nlohmann::json() : nlohmann::json(d.coherence)},
        {"layers", d.layers},
        {"model", mind.model_path()}};
    std::printf("%s\n", j.dump().c_str());
    return;
  }
  std::string line = std::string(1, d.letter) + "  (";
  for (size_t i = 0; i < d.probs.size(); ++i) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%s%c %.3f", i ? ", " : "", d.probs[i].first, d.probs[i].second);
    line += buf;
  }
  char tail[64];
  std::snprintf(tail, sizeof tail, ")  %.2f ms", d.lat_ms);
  std::printf("%s%s\n", line.c_str(), tail);
}

}  // namespace

void add_mind_commands(CLI::App& app) {
  auto args = std::make_shared<DecideArgs>();
  auto* d = app.add_subcommand("decide", "one decision: a rule, lettered options and a situation");
  d->add_option("--rule", args->rule, "the rule sentence")->required();
  d->add_option("--option", args->options, "an option as LETTER=TEXT (repeat)")->required();
  d->add_option("--state", args->state, "the situation sentence")->required();
  add_model_option(d, args->model);
  add_lora_option(d, args->lora);
  d->add_flag("--json", args->json, "print one JSON object");
  d->add_flag("--no-cache", args->no_cache, "no prefix cache: one uncached pass (same mask)");
  d->add_option("--threads", args->threads, "threads (0: auto)")
      ->check(CLI::Range(0, model::kMaxThreads));
  d->add_option("--slot", args->slot, "mask tokens in the answer slot")->check(CLI::Range(1, 8));
  d->add_option("--exit-margin", args->exit_margin,
                "early exit: stop at the first layer whose letter margin reaches this (0: off; "
                "costs accuracy, see docs/measurements.md)")
      ->check(CLI::Range(0.0, 1.0));
  add_float_recheck_option(d, args->float_recheck);
  d->callback([args] { run_decide(*args); });

  auto* p = app.add_subcommand("ai-prompt", "print a guide for a code agent wiring a new game");
  auto language = std::make_shared<std::string>("cpp");
  p->add_option("--lang", *language, "the guide for the C++ API or the Python package")
      ->check(CLI::IsMember({"cpp", "python"}));
  p->callback([language] { std::fputs(ai_prompt(*language).c_str(), stdout); });
}

}  // namespace meadow::cli
