// `meadow-mind reading`: how well models read rules, side by side. Scores a hand-written
// exam set (tests/data/exams/natural.jsonl: overall and by rule form, and again with the
// options listed in reverse order), the built-in exams, and the built-in exams relabelled
// (letters shifted in the rule and the options), with decision latency p50/p95 cached and
// uncached. Zero-shot: the prompt is the decision pass's, never tuned on the set. A
// meadow-reader's row reads each rule in parts: a rule it cannot read is counted as a miss and
// as refused; "uncached" is reading the rule and deciding, timed together.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "meadow/error.hpp"
#include "meadow/mind.hpp"
#include "meadow/runtime/decider.hpp"
#include "meadow/runtime/reader.hpp"
#include "meadow/tasks.hpp"
#include "util/read_file.hpp"

namespace meadow::cli {
namespace {

using nlohmann::ordered_json;

struct Item {
  std::string id, rule, state;
  std::vector<decision::Choice> choices;
  std::vector<std::string> forms;
  char answer = 'A';
};

std::vector<Item> load_set(const std::string& path) {
  // Bounded and type-checked: /dev/zero, a FIFO or a folder is an error, not all the memory.
  std::istringstream in(util::read_file(path));
  std::vector<Item> items;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = path + ":" + std::to_string(n);
    try {
      const auto j = nlohmann::json::parse(line);
      Item it;
      it.id = j.at("id").get<std::string>();
      it.rule = j.at("rule").get<std::string>();
      it.state = j.at("state").get<std::string>();
      for (const auto& o : j.at("options")) {
        const auto letter = o.at(0).get<std::string>();
        if (letter.size() != 1) throw Error("an option letter is not one character");
        it.choices.push_back({letter[0], o.at(1).get<std::string>()});
      }
      it.forms = j.at("forms").get<std::vector<std::string>>();
      const auto answer = j.at("answer").get<std::string>();
      if (answer.size() != 1) throw Error("the answer is not one letter");
      it.answer = answer[0];
      items.push_back(std::move(it));
    } catch (const nlohmann::json::exception& e) {
      throw Error(where + ": " + e.what());
    } catch (const Error& e) {
      throw Error(where + ": " + e.what());
    }
  }
  if (items.empty()) throw Error(path + ": no items");
  return items;
}

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, size_t(q * double(v.size() - 1) + 0.5))];
}

// Each option letter of `letters` standing alone in `text` (not inside a word) replaced by
// its image under `map`.
std::string relabel_text(const std::string& text, const std::map<char, char>& map) {
  std::string out = text;
  for (size_t i = 0; i < out.size(); ++i) {
    const auto it = map.find(text[i]);
    if (it == map.end()) continue;
    const bool left_ok = i == 0 || !std::isalnum(static_cast<unsigned char>(text[i - 1]));
    const bool right_ok =
        i + 1 == text.size() || !std::isalnum(static_cast<unsigned char>(text[i + 1]));
    if (left_ok && right_ok) out[i] = it->second;
  }
  return out;
}

std::string num_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// One item's decision (letter 0: the reader refused the rule), its latency with the table's
// constant part ready (a decoder's cached prefix, a reader's reading) and, when asked, without
// it (a decoder's uncached pass; a reader reading the rule again, then deciding).
struct ItemDecision {
  char letter = 0;
  double cached_ms = 0;
  int64_t layers = 0;
  std::optional<char> uncached_letter;
  double uncached_ms = 0;
};

ItemDecision decide_item(Mind& mind, const DecideOptions& dopt, const std::string& rule,
                         const std::vector<decision::Choice>& choices, const std::string& state,
                         bool uncached) {
  ItemDecision out;
  if (const reader::Reader* rd = mind.reader()) {
    std::vector<reader::Option> options;
    for (const auto& c : choices) options.push_back({c.letter, c.text});
    const reader::RunOptions run{.threads = dopt.threads};
    const auto t0 = std::chrono::steady_clock::now();
    const reader::Reading r = rd->read(rule, options, run);
    const double read_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (!r.unreadable().empty()) return out;  // refused: counted as a miss
    const reader::Decision d = rd->decide(r, state, run);
    out.letter = d.letter;
    out.cached_ms = d.lat_ms;
    out.layers = rd->encoder().config().n_layer;
    if (uncached) {
      out.uncached_letter = d.letter;  // the same reading and decision, timed whole
      out.uncached_ms = read_ms + d.lat_ms;
    }
    return out;
  }
  const decision::Decider d(mind.model(), mind.tokenizer(), rule, choices, dopt);
  const auto c = d.decide(state);
  out.letter = c.letter;
  out.cached_ms = c.lat_ms;
  out.layers = c.layers;
  if (uncached) {
    const auto u = d.decide_uncached(state);
    out.uncached_letter = u.letter;
    out.uncached_ms = u.lat_ms;
  }
  return out;
}

// A built-in exam's right answers; a reader that refuses the rule gets none of them.
int exam_right(Mind& mind, const Task& task, std::string& refused) {
  try {
    return mind.exam(task, 1 << 30).n_right;
  } catch (const Error& e) {
    if (!mind.reader()) throw;
    refused += (refused.empty() ? "" : "; ") + std::string(e.what());
    return 0;
  }
}

ordered_json score_model(const std::string& name, const std::string& lora,
                         const std::vector<Item>& items, int threads, bool uncached,
                         double exit_margin) {
  MindOptions mo;
  mo.decide.threads = threads;
  mo.lora = lora;
  mo.decide.want_coherence = false;
  mo.decide.exit_margin = exit_margin;
  Mind mind(name, mo);
  if (mind.reader() && exit_margin > 0)
    throw Error("--exit-margin: a meadow-reader has no early exit (" + name + ")");
  DecideOptions dopt;
  dopt.threads = threads;
  dopt.want_coherence = false;
  dopt.system = mo.decide.system;
  dopt.exit_margin = exit_margin;

  std::vector<double> lat_cached, lat_uncached;
  std::map<std::string, std::pair<int, int>> by_form;
  int right = 0, reversed_right = 0, agree = 0, cached_agree = 0, refused = 0;
  double layers = 0;
  for (const auto& it : items) {
    const ItemDecision c = decide_item(mind, dopt, it.rule, it.choices, it.state, uncached);
    refused += c.letter == 0;
    if (c.letter != 0) {
      lat_cached.push_back(c.cached_ms);
      layers += double(c.layers);
    }
    if (c.uncached_letter) {
      lat_uncached.push_back(c.uncached_ms);
      cached_agree += c.letter == *c.uncached_letter;
    }
    const bool ok = c.letter == it.answer;
    right += ok;
    for (const auto& f : it.forms) {
      auto& [r, n] = by_form[f];
      r += ok;
      ++n;
    }
    auto rev = it.choices;
    std::reverse(rev.begin(), rev.end());
    const char lr = decide_item(mind, dopt, it.rule, rev, it.state, false).letter;
    reversed_right += lr == it.answer;
    agree += lr == c.letter;
  }

  ordered_json builtin = ordered_json::object();
  int b_right = 0, b_total = 0, r_right = 0, r_total = 0;
  std::string refusals;
  for (const auto& tn : builtin_task_names()) {
    const BuiltinTask bt = builtin_task(tn);
    const int n_right = exam_right(mind, bt.task, refusals);
    const int n_total = int(bt.task.sanity.size());
    builtin[tn] = {n_right, n_total};
    b_right += n_right;
    b_total += n_total;
    // Relabelled: every letter moves to the next one of the task (cyclically), in the rule,
    // the options and the expected answers.
    std::map<char, char> shift;
    for (size_t i = 0; i < bt.task.options.size(); ++i)
      shift[bt.task.options[i].letter] = bt.task.options[(i + 1) % bt.task.options.size()].letter;
    Task t = bt.task;
    t.rule = relabel_text(t.rule, shift);
    for (auto& o : t.options) o.letter = shift.at(o.letter);
    std::sort(t.options.begin(), t.options.end(),
              [](const Option& a, const Option& b) { return a.letter < b.letter; });
    for (auto& s : t.sanity) s.expected = shift.at(s.expected);
    r_right += exam_right(mind, t, refusals);
    r_total += int(t.sanity.size());
  }

  ordered_json forms = ordered_json::object();
  for (const auto& [f, rn] : by_form) forms[f] = {rn.first, rn.second};
  const double n = double(items.size());
  const reader::Reader* rd = mind.reader();
  return ordered_json{
      {"model", exit_margin > 0 ? name + " exit@" + num_text(exit_margin) : name},
      {"exit_margin", exit_margin},
      {"layers_mean", n > refused ? layers / (n - refused) : 0.0},
      {"layers", rd ? rd->encoder().config().n_layer : mind.model().config().n_layer},
      {"path", mind.model_path()},
      {"lora", lora.empty() ? ordered_json() : ordered_json(lora)},
      {"arch", rd ? std::string("bert (meadow-reader)")
                  : std::string(model::arch_name(mind.model().config().arch))},
      {"refused", refused},
      {"builtin_refusals", refusals},
      {"threads", threads},
      {"natural", {{"right", right}, {"n", items.size()}, {"accuracy", right / n}}},
      {"natural_reversed_order",
       {{"right", reversed_right}, {"accuracy", reversed_right / n}, {"same_letter", agree / n}}},
      {"cached_equals_uncached", uncached ? ordered_json(cached_agree / n) : ordered_json()},
      {"by_form", forms},
      {"builtin", builtin},
      {"builtin_total", {b_right, b_total}},
      {"builtin_relabelled", {r_right, r_total}},
      {"latency_ms",
       {{"cached_p50", percentile(lat_cached, 0.5)},
        {"cached_p95", percentile(lat_cached, 0.95)},
        {"uncached_p50", uncached ? ordered_json(percentile(lat_uncached, 0.5)) : ordered_json()},
        {"uncached_p95",
         uncached ? ordered_json(percentile(lat_uncached, 0.95)) : ordered_json()}}},
  };
}

void print_table(const std::vector<ordered_json>& rows) {
  std::printf("%d items\n\n", rows[0]["natural"]["n"].get<int>());
  std::printf("| |");
  for (const auto& r : rows) std::printf(" %s |", r["model"].get<std::string>().c_str());
  std::printf("\n|---|");
  for (size_t i = 0; i < rows.size(); ++i) std::printf("---|");
  std::printf("\n");
  auto line = [&](const std::string& label, auto cell) {
    std::printf("| %s |", label.c_str());
    for (const auto& r : rows) std::printf(" %s |", cell(r).c_str());
    std::printf("\n");
  };
  auto frac = [](int a, int b) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f (%d/%d)", b ? double(a) / b : 0.0, a, b);
    return std::string(buf);
  };
  auto num = [](double v, const char* fmt) {
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, v);
    return std::string(buf);
  };
  line("layers run (mean, of)", [&](const ordered_json& r) {
    return num(r["layers_mean"].get<double>(), "%.2f") + " / " +
           std::to_string(r["layers"].get<int>());
  });
  line("hand-written set", [&](const ordered_json& r) {
    return frac(r["natural"]["right"].get<int>(), r["natural"]["n"].get<int>());
  });
  line("refused (rule not readable)",
       [&](const ordered_json& r) { return std::to_string(r["refused"].get<int>()); });
  line("same set, options listed in reverse", [&](const ordered_json& r) {
    return frac(r["natural_reversed_order"]["right"].get<int>(), r["natural"]["n"].get<int>());
  });
  line("same letter after reordering", [&](const ordered_json& r) {
    return num(r["natural_reversed_order"]["same_letter"].get<double>(), "%.3f");
  });
  for (const auto& [form, _] : rows[0]["by_form"].items()) {
    line("form: " + form, [&, f = form](const ordered_json& r) {
      const auto& c = r["by_form"][f];
      return frac(c[0].get<int>(), c[1].get<int>());
    });
  }
  for (const auto& [task, _] : rows[0]["builtin"].items()) {
    line("built-in exam: " + task, [&, t = task](const ordered_json& r) {
      return frac(r["builtin"][t][0].get<int>(), r["builtin"][t][1].get<int>());
    });
  }
  line("built-in exams, relabelled", [&](const ordered_json& r) {
    return frac(r["builtin_relabelled"][0].get<int>(), r["builtin_relabelled"][1].get<int>());
  });
  for (const char* k : {"cached_p50", "cached_p95", "uncached_p50", "uncached_p95"}) {
    line(std::string("latency ") + k + " (ms)", [&](const ordered_json& r) {
      const auto& v = r["latency_ms"][k];
      return v.is_null() ? std::string("-") : num(v.get<double>(), "%.2f");
    });
  }
}

struct ReadingArgs {
  std::vector<std::string> models;
  std::string lora;
  std::string set;
  int threads = 2;
  int sample = 1;
  bool no_uncached = false;
  bool json = false;
  std::vector<double> exit_margins;
};

}  // namespace

void add_reading_command(CLI::App& app) {
  auto a = std::make_shared<ReadingArgs>();
  auto* c =
      app.add_subcommand("reading",
                         "rule reading, side by side: a hand-written exam set, the built-in exams, "
                         "relabelled exams, latency");
  c->add_option("--set", a->set, "exam set (JSONL, tests/data/exams/natural.jsonl)")->required();
  c->add_option("--model", a->models, "model name or path (repeat; default: nano)");
  add_lora_option(c, a->lora)->description("LoRA adapter GGUF applied to every --model");
  c->add_option("--threads", a->threads, "threads")->check(CLI::Range(1, model::kMaxThreads));
  c->add_option("--sample", a->sample, "score every K-th item only (big models)")
      ->check(CLI::Range(1, 1000));
  c->add_flag("--no-uncached", a->no_uncached, "skip the uncached pass (big models)");
  c->add_flag("--json", a->json, "one JSON object per model, one per line");
  c->add_option("--exit-margin", a->exit_margins,
                "early exit at this letter margin (repeat for a column each; 0: off)")
      ->check(CLI::Range(0.0, 1.0));
  c->callback([a] {
    auto all = load_set(a->set);
    std::vector<Item> items;
    for (size_t i = 0; i < all.size(); i += size_t(a->sample)) items.push_back(all[i]);
    if (a->models.empty()) a->models = {"nano"};
    std::vector<ordered_json> rows;
    if (a->exit_margins.empty()) a->exit_margins = {0.0};
    for (const auto& m : a->models) {
      if (m.empty()) throw Error("--model: empty model path");
      for (const double margin : a->exit_margins) {
        rows.push_back(score_model(m, a->lora, items, a->threads, !a->no_uncached, margin));
        if (a->json) std::printf("%s\n", rows.back().dump().c_str());
        std::fflush(stdout);
      }
    }
    if (!a->json) print_table(rows);
  });
}

}  // namespace meadow::cli
