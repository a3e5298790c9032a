// meadow-reader on the command line (meadow/runtime/reader.hpp):
//
//   meadow-mind decide --model READER.gguf --rule TEXT --option "A=TEXT" ... --state TEXT [--json]
//       (mind_commands.cpp hands a reader file here) prints the decision and how the rule was
//       read: {"letter", "probs", "lat_ms", "margin", "model", "read_ms", "reading"}, "reading"
//       holding each option's clauses with each literal's P(holds) in this situation.
//   meadow-mind read-rule --model READER.gguf --rule TEXT --option "A=TEXT" ... [--json]
//       prints how the rule was read, and exits 2 naming the words when the reader cannot split
//       it (no condition for any option and no default, or longer than it reads).
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/reader_cli.hpp"
#include "meadow/error.hpp"
#include "meadow/mind.hpp"
#include "meadow/runtime/encoder.hpp"
#include "meadow/runtime/gguf.hpp"
#include "meadow/runtime/reader.hpp"

namespace meadow::cli {
namespace {

using nlohmann::ordered_json;

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

std::vector<reader::Option> parse_options(const std::vector<std::string>& specs) {
  std::vector<reader::Option> out;
  for (const std::string& s : specs) {
    if (s.size() < 2 || s[1] != '=')
      throw Error("--option '" + s + "': expected LETTER=TEXT, e.g. \"A=push the cart left\"");
    out.push_back({s[0], s.substr(2)});
  }
  return out;
}

std::string letter(char c) {
  return std::string(1, c);
}

// The reading as JSON; with a decision, each literal's and each option's P(holds) too.
ordered_json reading_json(const reader::Reading& r, const reader::Decision* d) {
  const auto def = r.default_index();
  ordered_json options = ordered_json::array();
  size_t lit = 0;
  for (size_t i = 0; i < r.options.size(); ++i) {
    const reader::OptionReading& o = r.options[i];
    ordered_json clauses = ordered_json::array();
    for (const reader::Clause& c : o.clauses) {
      ordered_json literals = ordered_json::array();
      for (const reader::Literal& l : c.literals) {
        ordered_json j{{"text", l.text}, {"words", l.words.text}, {"tag_p", l.tag_p}};
        if (l.antecedent) j["antecedent"] = l.antecedent->text;
        if (d) j["p"] = d->literal_p[lit];
        ++lit;
        literals.push_back(std::move(j));
      }
      clauses.push_back({{"join", reader::join_name(c.join)}, {"literals", std::move(literals)}});
    }
    ordered_json j{{"letter", letter(o.letter)},
                   {"text", o.text},
                   {"p_default", o.p_default},
                   {"default", def == i},
                   {"clauses", std::move(clauses)}};
    if (d) j["p_condition"] = d->option_p[i];
    options.push_back(std::move(j));
  }
  ordered_json unclaimed = ordered_json::array(), unreachable = ordered_json::array();
  for (const reader::Span& s : r.unclaimed) unclaimed.push_back(s.text);
  for (char c : r.unreachable()) unreachable.push_back(letter(c));
  return {{"default", def ? ordered_json(letter(r.options[*def].letter)) : ordered_json()},
          {"options", std::move(options)},
          {"unclaimed", std::move(unclaimed)},
          {"unreachable", std::move(unreachable)},
          {"unreadable", r.unreadable()}};
}

struct ReadRuleArgs {
  std::string model, rule;
  std::vector<std::string> options;
  int threads = 2;
  bool json = false;
};

void run_read_rule(const ReadRuleArgs& a) {
  const std::vector<reader::Option> options = parse_options(a.options);
  const std::string path = resolve_model(a.model);
  const reader::Reader rd = reader::Reader::open(path);
  const auto t0 = std::chrono::steady_clock::now();
  const reader::Reading r = rd.read(a.rule, options, {.threads = a.threads});
  const double read_ms = ms_since(t0);
  if (a.json) {
    ordered_json j = reading_json(r, nullptr);
    j["read_ms"] = read_ms;
    j["model"] = path;
    std::printf("%s\n", j.dump().c_str());
  } else {
    std::printf("read in %.2f ms\n", read_ms);
    std::printf("%s", reader::describe(r).c_str());
  }
  if (const std::string why = r.unreadable(); !why.empty()) throw Error(why);
}

}  // namespace

bool is_reader_model(const std::string& path) {
  const gguf::File f = gguf::File::open(path);
  return model::is_encoder(f);  // a bert file without the heads: Reader::open says what is missing
}

void decide_with_reader(const std::string& path, const std::string& rule,
                        const std::vector<std::string>& option_specs, const std::string& state,
                        int threads, bool as_json) {
  const std::vector<reader::Option> options = parse_options(option_specs);
  const reader::Reader rd = reader::Reader::open(path);
  model::Workspace ws;
  const reader::RunOptions run{.threads = threads > 0 ? threads : 2, .workspace = &ws};
  const auto t0 = std::chrono::steady_clock::now();
  const reader::Reading r = rd.read(rule, options, run);
  const double read_ms = ms_since(t0);
  const reader::Decision d = rd.decide(r, state, run);
  if (as_json) {
    ordered_json probs = ordered_json::object();
    for (const auto& [l, p] : d.probs) probs[letter(l)] = p;
    const ordered_json j{{"letter", letter(d.letter)},
                         {"probs", probs},
                         {"lat_ms", d.lat_ms},
                         {"margin", d.margin},
                         {"model", path},
                         {"read_ms", read_ms},
                         {"reading", reading_json(r, &d)}};
    std::printf("%s\n", j.dump().c_str());
    return;
  }
  std::string line = letter(d.letter) + "  (";
  for (size_t i = 0; i < d.probs.size(); ++i) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%s%c %.3f", i ? ", " : "", d.probs[i].first, d.probs[i].second);
    line += buf;
  }
  std::printf("%s)  %.2f ms (reading the rule: %.2f ms)\n", line.c_str(), d.lat_ms, read_ms);
  std::printf("%s", reader::describe(r, &d).c_str());
}

void add_reader_commands(CLI::App& app) {
  auto a = std::make_shared<ReadRuleArgs>();
  auto* c = app.add_subcommand("read-rule",
                               "how a meadow-reader reads a rule: each option's "
                               "conditions, the default, words it could not place");
  add_model_option(c, a->model, /*required=*/true);
  c->add_option("--rule", a->rule, "the rule sentence")->required();
  c->add_option("--option", a->options, "an option as LETTER=TEXT (repeat)")->required();
  c->add_option("--threads", a->threads, "threads")->check(CLI::Range(1, model::kMaxThreads));
  c->add_flag("--json", a->json, "print one JSON object");
  c->callback([a] { run_read_rule(*a); });
}

}  // namespace meadow::cli
