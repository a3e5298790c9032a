// The real-time games' commands: `meadow-mind parkour`, `meadow-mind shapes`.
//
//   meadow-mind parkour [--model M] [--lora F] [--seed N] [--gif F] [--trace F]
//                       [--contender NAME|PATH|off] [--contender-tokens N]
//   meadow-mind shapes  (the same options)
//
// Exam → one run against the wall clock (GIF with wall-clock frame delays, trace) → result
// line; shapes then halves its first window until the mind no longer matches all six and
// prints the smallest window that still scored 6/6. Then the full-generation contender plays
// the same seed (and, for shapes, the same windows) and both results are printed side by side.
// Exit 1 when the exam fails or the mind's run misses its target.
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cli/commands.hpp"
#include "cli/seed_option.hpp"
#include "cli/task_cli.hpp"
#include "meadow/error.hpp"
#include "meadow/realtime.hpp"
#include "meadow/runtime/model.hpp"
#include "meadow/runtime/tokenizer.hpp"

namespace meadow::cli {
namespace {

struct RealtimeArgs {
  std::string task;
  std::string model;
  std::string lora;
  std::optional<uint64_t> seed;
  std::string gif;
  std::string trace;
  std::string contender = "smollm2-135m";  // "off": none
  int contender_tokens = 24;
  double window_ms = 0;  // shapes: the first window of the main run (0: the env's default)
};

// Shapes-v0's defaults (src/envs/shapes.hpp): first window 1 s, each round 0.8 of the last.
constexpr double kFirstWindow = 1.0, kShrink = 0.8;
constexpr int kRounds = 6;

double last_window_ms(double first) {
  return 1000 * first * std::pow(kShrink, kRounds - 1);
}

int score(const RealtimeResult& r) {
  return int(std::lround(r.episode.total_reward));
}

void print_run(const char* who, const RealtimeResult& r) {
  std::printf(
      "%-10s %s %s\n  decisions %zu (%lld late), latency p50 %.2f ms, p95 %.2f ms, game %.2f s\n",
      who, r.verdict.ok ? "PASS" : "FAIL", r.verdict.text.c_str(), r.decisions.size(),
      static_cast<long long>(r.late), r.p50_ms, r.p95_ms, r.game_s);
  std::fflush(stdout);
}

// One row per first window, halving from 1 s while the player matches all six (down to
// 1 ms); returns the smallest last-round window (ms) of a 6/6 run, or nullopt if none.
struct WindowRow {
  double first_s;
  int matched;
  int64_t late;
  double p50_ms;
};
std::optional<double> search_windows(Task& task, const DecideFn& decide, uint64_t seed,
                                     std::vector<WindowRow>& rows) {
  std::optional<double> best;
  for (double w = kFirstWindow; w >= 0.001; w /= 2) {
    RealtimeOptions o;
    o.seed = seed;
    o.env_kwargs = task.env_kwargs;
    o.env_kwargs["window"] = w;
    const RealtimeResult r = run_realtime(task, decide, o);
    rows.push_back({w, score(r), r.late, r.p50_ms});
    std::printf("  first window %7.1f ms, last %6.1f ms: matched %d/6 (%lld late, p50 %.2f ms)\n",
                1000 * w, last_window_ms(w), score(r), static_cast<long long>(r.late), r.p50_ms);
    std::fflush(stdout);
    if (score(r) < kRounds) break;
    best = last_window_ms(w);
  }
  return best;
}

std::string window_text(const std::optional<double>& ms) {
  if (!ms) return "none (no window scored 6/6)";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.1f ms", *ms);
  return buf;
}

// The same game played by a model that writes its answer, and the two side by side.
void run_contender(const RealtimeArgs& a, BuiltinTask& bt, const Mind& mind, uint64_t seed,
                   const RealtimeResult& r, std::optional<double> mind_best) {
  const bool shapes = bt.task.env_id == "Shapes-v0";
  // The contender's model: SmolLM2 when present, else the mind's own model generating.
  std::string path;
  try {
    path = resolve_model(a.contender);
  } catch (const Error& e) {
    std::printf("contender %s not found (%s); generating with %s instead\n", a.contender.c_str(),
                e.what(), mind.model_path().c_str());
    path = mind.model_path();
  }
  const model::Model cm = model::Model::load(path);
  const Tokenizer ctok = Tokenizer::from_gguf(cm.file());
  const int threads = int(std::max(1u, std::thread::hardware_concurrency()));
  const DecideFn gen = generating_decider(cm, ctok, a.contender_tokens, threads);
  std::printf("full-generation contender: %s, up to %d tokens a decision\n", path.c_str(),
              a.contender_tokens);
  RealtimeOptions co;
  co.seed = seed;
  const RealtimeResult cr = run_realtime(bt.task, gen, co);
  print_run("generate", cr);
  std::optional<double> gen_best;
  if (shapes) {
    std::vector<WindowRow> rows;
    gen_best = search_windows(bt.task, gen, seed, rows);
  }
  std::printf("\n%-22s %-12s %-12s\n", "", "one pass", "generation");
  std::printf("%-22s %-12s %-12s\n", shapes ? "matched (1 s window)" : "cleared",
              (std::to_string(score(r)) + "/6").c_str(),
              (std::to_string(score(cr)) + "/6").c_str());
  if (shapes)
    std::printf("%-22s %-12s %-12s\n", "smallest 6/6 window", window_text(mind_best).c_str(),
                window_text(gen_best).c_str());
  char a_lat[32], b_lat[32];
  std::snprintf(a_lat, sizeof a_lat, "%.1f ms", r.p50_ms);
  std::snprintf(b_lat, sizeof b_lat, "%.1f ms", cr.p50_ms);
  std::printf("%-22s %-12s %-12s\n", "decision p50", a_lat, b_lat);
  std::printf("%-22s %-12lld %-12lld\n", "late answers", static_cast<long long>(r.late),
              static_cast<long long>(cr.late));
}

void run(const RealtimeArgs& a) {
  BuiltinTask bt = builtin_task(a.task);
  const bool shapes = bt.task.env_id == "Shapes-v0";
  if (a.window_ms > 0 && !shapes) throw Error("--window is for shapes only");
  MindOptions mo;  // field by field: see task_commands.cpp's mind_options
  mo.lora = a.lora;
  Mind mind(a.model, mo);
  if (!run_exam(mind, bt.task)) throw Exit{1};
  const uint64_t seed = a.seed.value_or(bt.seeds.at(0));
  std::printf("%s: %s\nrule: %s\nseed: %llu (target: %s)\n", bt.task.name.c_str(),
              bt.task.summary.c_str(), bt.task.rule.c_str(), static_cast<unsigned long long>(seed),
              bt.target.c_str());
  std::printf(
      "real time: the game clock runs on steady_clock in its own thread; an answer that "
      "arrives after its wall hit or its window closed is late and does nothing\n");
  std::fflush(stdout);

  RealtimeOptions o;
  o.seed = seed;
  o.gif_path = a.gif.empty() ? "out/" + bt.task.name + ".gif" : a.gif;
  o.trace_path = a.trace;
  if (a.window_ms > 0) {
    o.env_kwargs = bt.task.env_kwargs;
    o.env_kwargs["window"] = a.window_ms / 1000;
  }
  ensure_parent(o.gif_path);
  if (!o.trace_path.empty()) ensure_parent(o.trace_path);
  const DecideFn mind_decide = mind_decider(mind);
  const RealtimeResult r = run_realtime(bt.task, mind_decide, o);
  print_run("mind", r);
  std::printf("  gif: %s (%d frames, delays = wall-clock time)\n", o.gif_path.c_str(),
              r.gif_frames);
  if (!o.trace_path.empty()) std::printf("  trace: %s\n", o.trace_path.c_str());
  std::optional<double> mind_best;
  if (shapes) {
    std::printf("smallest window, mind (%s):\n", mind.model_path().c_str());
    std::vector<WindowRow> rows;
    mind_best = search_windows(bt.task, mind_decide, seed, rows);
    std::printf("mind: matched %d/6 shapes, smallest window %s\n", score(r),
                window_text(mind_best).c_str());
  } else {
    std::printf("mind: cleared %d/6 obstacles\n", score(r));
  }
  std::fflush(stdout);

  if (a.contender != "off") run_contender(a, bt, mind, seed, r, mind_best);
  std::fflush(stdout);
  if (!r.verdict.ok) throw Exit{1};
}

}  // namespace

void add_realtime_task_command(CLI::App& app, const BuiltinTask& bt) {
  auto a = std::make_shared<RealtimeArgs>();
  a->task = bt.task.name;
  auto* c = app.add_subcommand(bt.task.name,
                               "exam, then a run against the wall clock with a GIF, beside a "
                               "full-generation contender: " +
                                   bt.task.summary);
  add_model_option(c, a->model);
  add_lora_option(c, a->lora);
  c->add_option("--seed", a->seed, "seed of the wall / shape sequence (default: the task's)")
      ->check(seed_check());
  c->add_option("--gif", a->gif, "GIF file (default out/<task>.gif); delays are wall-clock time");
  c->add_option("--trace", a->trace, "trace file: one JSON line per decision (read/answer times)");
  c->add_option(
       "--window", a->window_ms,
       "shapes: first window of the main run, ms (default 1000; each round 0.8 of the last)")
      ->check(CLI::Range(0.1, 60000.0));
  c->add_option("--contender", a->contender,
                "the full-generation contender's model (name or path), or off");
  c->add_option("--contender-tokens", a->contender_tokens, "tokens the contender writes at most")
      ->check(CLI::Range(1, 512));
  c->callback([a] { run(*a); });
}

}  // namespace meadow::cli
