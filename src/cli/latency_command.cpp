// `meadow-mind latency`: what one decision costs against writing an answer, on this machine.
//
//   meadow-mind latency [--model M] [--causal M2] [--lengths 8,16,...] [--csv F] [--png F]
//
// Lines: the decision (one pass, the cartpole table, p50 over its exam sentences), the
// diffusion model's answer of N tokens (one token a step, and the confidence-threshold mode),
// and a causal model writing N tokens one at a time (--causal, default smollm2-135m when it is
// in the cache). Prints the table, writes a CSV and a log-log PNG plot.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "meadow/error.hpp"
#include "meadow/mind.hpp"
#include "meadow/render.hpp"
#include "meadow/runtime/generate.hpp"
#include "meadow/runtime/plot.hpp"
#include "meadow/tasks.hpp"
#include "util/atomic_file.hpp"

namespace meadow::cli {
namespace {

struct LatencyArgs {
  std::string model, causal = "smollm2-135m", csv = "out/latency.csv", png = "out/latency.png";
  std::vector<int> lengths = {8, 16, 32, 64, 128, 256};
  int threads = 1;
  int repeats = 3;
};

struct Row {
  std::string line;
  int tokens = 0;
  double ms = 0;
};

// The same question for every line: the cartpole table and one of its exam sentences.
std::vector<ChatMessage> question(const Task& t) {
  std::string user = "Rule: " + t.rule + "\nOptions:\n";
  for (const auto& o : t.options) user += std::string(1, o.letter) + ") " + o.text + "\n";
  user += "Situation: " + t.sanity.front().status + "\nExplain what to do and why.";
  return {{"user", user}};
}

// Generation time for each length: prompt included, best of `repeats` (the machine's noise
// only ever adds time).
void generation_rows(const std::string& path, const std::string& line_name, double threshold,
                     const LatencyArgs& a, const Task& task, std::vector<Row>& rows) {
  const model::Model m = model::Model::load(path);
  const Tokenizer tok = Tokenizer::from_gguf(m.file());
  const auto prompt = generate::chat_prompt_ids(tok, question(task));
  for (int n : a.lengths) {
    generate::GenerateOptions o;
    o.max_new_tokens = n;
    o.block_size = std::min(32, n);
    o.threshold = threshold;
    o.ignore_eos = true;  // the same number of tokens for every line
    o.threads = a.threads;
    double best = 1e300;
    for (int r = 0; r < a.repeats; ++r) {
      const generate::Generation g = generate::generate(m, tok, prompt, o);
      best = std::min(best, g.prefill_ms + g.ms);
    }
    rows.push_back({line_name, n, best});
    std::fprintf(stderr, "  %-40s %4d tokens %10.1f ms\n", line_name.c_str(), n, best);
  }
}

void run_latency(const LatencyArgs& a) {
  for (int n : a.lengths)
    if (n < 1 || n > 4096) throw Error("--lengths: each length must be 1..4096");
  if (a.lengths.empty()) throw Error("--lengths is empty");
  const std::string path = resolve_model(a.model);
  Task task = builtin_task("cartpole").task;
  std::vector<Row> rows;

  // The decision: one pass per sentence, cached prefix, p50 of every exam sentence x repeats.
  MindOptions mo;
  mo.decide.threads = a.threads;
  Mind mind(path, mo);
  std::vector<double> lat;
  for (int r = 0; r < a.repeats; ++r)
    for (const auto& item : task.sanity)
      lat.push_back(mind.decide_status(task, item.status).lat_ms);
  const double decision_ms = percentile(lat, 0.5);
  const std::string arch = model::arch_name(mind.model().config().arch);
  for (int n : a.lengths) rows.push_back({"decision (one pass)", n, decision_ms});
  std::fprintf(stderr, "  decision (one pass): p50 %.3f ms\n", decision_ms);

  if (!mind.model().config().causal) {
    generation_rows(path, arch + " diffusion, one token a step", 0, a, task, rows);
    generation_rows(path, arch + " diffusion, threshold 0.9", 0.9, a, task, rows);
  } else {
    generation_rows(path, arch + " token by token", 0, a, task, rows);
  }
  std::string causal_path;
  if (!a.causal.empty()) {
    try {
      causal_path = resolve_model(a.causal);
    } catch (const Error& e) {
      std::fprintf(stderr, "  no causal line: %s\n", e.what());
    }
  }
  if (!causal_path.empty() && causal_path != path) {
    const model::Model probe = model::Model::load(causal_path);
    const std::string name = std::string(model::arch_name(probe.config().arch)) + " " +
                             std::filesystem::path(causal_path).stem().string() + " token by token";
    generation_rows(causal_path, name, 0, a, task, rows);
  }

  // Table, CSV, plot.
  std::printf("%-44s %8s %12s\n", "line", "tokens", "ms");
  for (const Row& r : rows) std::printf("%-44s %8d %12.2f\n", r.line.c_str(), r.tokens, r.ms);
  for (const std::string& f : {a.csv, a.png}) {
    const auto dir = std::filesystem::path(f).parent_path();
    if (!dir.empty()) std::filesystem::create_directories(dir);
  }
  util::AtomicFile csv(a.csv);
  std::fprintf(csv.stream(), "line,tokens,ms\n");
  for (const Row& r : rows)
    std::fprintf(csv.stream(), "\"%s\",%d,%.4f\n", r.line.c_str(), r.tokens, r.ms);
  csv.commit();

  PlotSpec spec;
  spec.title =
      "Decision vs answer latency (" + std::filesystem::path(path).filename().string() + ")";
  spec.x_label = "answer length (tokens)";
  spec.y_label = "latency (ms), log scale";
  spec.log_x = spec.log_y = true;
  const Rgb colors[] = {
      {31, 119, 180}, {255, 127, 14}, {44, 160, 44}, {214, 39, 40}, {148, 103, 189}};
  for (const Row& r : rows) {
    if (spec.series.empty() || spec.series.back().name != r.line)
      spec.series.push_back({r.line, {}, {}, colors[spec.series.size() % 5]});
    spec.series.back().x.push_back(r.tokens);
    spec.series.back().y.push_back(std::max(r.ms, 1e-3));
  }
  write_png(a.png, rasterize(line_plot(spec)));
  std::printf("wrote %s and %s\n", a.csv.c_str(), a.png.c_str());
}

}  // namespace

void add_latency_command(CLI::App& app) {
  auto a = std::make_shared<LatencyArgs>();
  auto* c = app.add_subcommand("latency", "decision latency against answer generation, plotted");
  add_model_option(c, a->model);
  c->add_option("--causal", a->causal, "a causal model for the token-by-token line (\"\": none)");
  c->add_option("--lengths", a->lengths, "answer lengths in tokens")->delimiter(',');
  c->add_option("--csv", a->csv, "CSV output");
  c->add_option("--png", a->png, "plot output");
  c->add_option("--threads", a->threads, "threads")->check(CLI::Range(1, model::kMaxThreads));
  c->add_option("--repeats", a->repeats, "runs per point (best kept)")->check(CLI::Range(1, 100));
  c->callback([a] { run_latency(*a); });
}

}  // namespace meadow::cli
