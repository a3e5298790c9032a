// The tasks' commands: `<task>` (exam → one episode → GIF + verdict), list, check, play, bench.
//
//   meadow-mind cartpole [--model PATH] [--lora FILE] [--seed N] [--gif F] [--trace F]
//   (the real-time games, parkour and shapes, get their own command: realtime_commands.cpp)
//   meadow-mind list [--json]
//   meadow-mind check TASK [--model PATH] [--lora FILE]
//   meadow-mind play TASK [--seed N] [--episodes N] [--gif F] [--trace F] [--model PATH]
//                         [--lora FILE] [--memory on|off]
//   meadow-mind bench [--model PATH] [--lora FILE] [--decisions N] [--threads N]
//
// Exit codes: 0 success; 1 a failed exam or an episode that missed its target; 2 bad input.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/seed_option.hpp"
#include "cli/task_cli.hpp"
#include "meadow/error.hpp"
#include "meadow/mind.hpp"
#include "meadow/runtime/model.hpp"
#include "meadow/runtime/reader.hpp"
#include "meadow/runtime/tokenizer.hpp"
#include "meadow/task_file.hpp"
#include "meadow/tasks.hpp"
#include "tensor/ops.hpp"

namespace meadow::cli {
namespace {

// A mind's options from a command's flags, set field by field: GCC 12 warns (falsely) that a
// designated initializer of MindOptions leaves its nested std::string uninitialized.
MindOptions mind_options(const std::string& lora,
                         double float_recheck = DecideOptions{}.float_recheck) {
  MindOptions o;
  o.decide.float_recheck = float_recheck;
  o.lora = lora;
  return o;
}

struct PlayArgs {
  std::string task;
  std::string model;
  std::string lora;
  std::optional<uint64_t> seed;
  int episodes = 1;
  std::string gif;
  std::string trace;
  std::string memory;  // "", "on" or "off"
  bool no_gif = false;
  double float_recheck = DecideOptions{}.float_recheck;
};

std::string seed_list(const std::vector<uint64_t>& seeds) {
  std::string s;
  for (uint64_t v : seeds) s += (s.empty() ? "" : ",") + std::to_string(v);
  return s;
}

// "out/cartpole.gif" → "out/cartpole-seed3.gif" when several episodes are played.
std::string per_seed(const std::string& path, uint64_t seed, bool several) {
  if (path.empty() || !several) return path;
  const std::filesystem::path p(path);
  return (p.parent_path() /
          (p.stem().string() + "-seed" + std::to_string(seed) + p.extension().string()))
      .string();
}

// Plays the episodes; returns true when every verdict (and the seeds' joint verdict) is ok.
bool play(BuiltinTask& bt, Mind& mind, const PlayArgs& a) {
  if (a.memory == "on") bt.task.memory = true;
  if (a.memory == "off") bt.task.memory = false;
  validate(bt.task);  // memory on without a memory key fails here
  if (a.seed && *a.seed > UINT64_MAX - uint64_t(a.episodes - 1))
    throw Error("--seed " + std::to_string(*a.seed) + " with --episodes " +
                std::to_string(a.episodes) + " runs past the largest seed, 18446744073709551615");
  std::vector<uint64_t> seeds;
  for (int i = 0; i < a.episodes; ++i) {
    if (a.seed)
      seeds.push_back(*a.seed + uint64_t(i));
    else
      seeds.push_back(size_t(i) < bt.seeds.size() ? bt.seeds[size_t(i)]
                                                  : bt.seeds.back() + uint64_t(i));
  }
  std::printf("%s: %s\nrule: %s\nseeds: %s (target: %s)\nmemory: %s\n", bt.task.name.c_str(),
              bt.task.summary.c_str(), bt.task.rule.c_str(), seed_list(seeds).c_str(),
              bt.target.c_str(), bt.task.memory ? "on" : "off");
  const bool several = seeds.size() > 1;
  const DecideFn decide = mind_decider(mind);
  std::vector<Episode> episodes;
  bool all_ok = true;
  for (uint64_t seed : seeds) {
    RunOptions o;
    o.seed = seed;
    o.progress = true;
    o.gif_path = a.no_gif ? "" : per_seed(a.gif, seed, several);
    o.trace_path = per_seed(a.trace, seed, several);
    if (!o.gif_path.empty()) ensure_parent(o.gif_path);
    if (!o.trace_path.empty()) ensure_parent(o.trace_path);
    RunResult r = run_episode(bt.task, decide, o);
    if (r.loop_hint) std::printf("hint: %s\n", r.loop_hint->c_str());
    std::printf("seed %llu: %s %s\n  decisions %zu, latency p50 %.2f ms, p95 %.2f ms\n",
                static_cast<unsigned long long>(seed), r.verdict.ok ? "PASS" : "FAIL",
                r.verdict.text.c_str(), r.episode.steps.size(), r.p50_ms, r.p95_ms);
    if (!o.gif_path.empty())
      std::printf("  gif: %s (%d frames)\n", o.gif_path.c_str(), r.gif_frames);
    if (!o.trace_path.empty()) std::printf("  trace: %s\n", o.trace_path.c_str());
    std::fflush(stdout);
    all_ok = all_ok && r.verdict.ok;
    episodes.push_back(std::move(r.episode));
  }
  if (several && bt.judge_all) {
    const Verdict v = bt.judge_all(episodes);
    std::printf("verdict: %s %s (target: %s)\n", v.ok ? "PASS" : "FAIL", v.text.c_str(),
                bt.target.c_str());
    all_ok = all_ok && v.ok;
  }
  return all_ok;
}

void add_play_options(CLI::App* c, const std::shared_ptr<PlayArgs>& a) {
  add_model_option(c, a->model);
  add_lora_option(c, a->lora);
  c->add_option("--seed", a->seed, "first seed (default: the task's fixed seeds)")
      ->check(seed_check());
  c->add_option("--gif", a->gif, "GIF file: one frame per decision, captioned");
  c->add_option("--trace", a->trace, "trace file: one JSON line per decision");
}

void run_task_command(const std::shared_ptr<PlayArgs>& a) {
  BuiltinTask bt = builtin_task(a->task);
  Mind mind(a->model, mind_options(a->lora));
  if (!run_exam(mind, bt.task)) throw Exit{1};
  if (a->gif.empty()) a->gif = "out/" + bt.task.name + ".gif";
  if (!play(bt, mind, *a)) throw Exit{1};
}

void print_list(bool json) {
  if (json) {
    nlohmann::ordered_json all = nlohmann::ordered_json::array();
    for (const auto& name : builtin_task_names()) all.push_back(task_json(builtin_task(name)));
    std::printf("%s\n", all.dump(2).c_str());
    return;
  }
  for (const auto& name : builtin_task_names()) {
    const BuiltinTask bt = builtin_task(name);
    std::printf("%-12s %-16s %s\n%-12s %-16s target: %s\n", name.c_str(), bt.task.env_id.c_str(),
                bt.task.summary.c_str(), "", "", bt.target.c_str());
  }
}

// "AMD EPYC, 2 cpus, load 10.6": benches name the machine they ran on.
std::string machine() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, model = "unknown cpu";
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  double load = 0;
  std::ifstream("/proc/loadavg") >> load;
  char buf[64];
  std::snprintf(buf, sizeof buf, ", %u cpus, load %.1f", std::thread::hardware_concurrency(), load);
  return model + buf;
}

struct BenchArgs {
  std::string model;
  std::string lora;
  int decisions = 50;
  int threads = 2;
};

// p50/p95 of the decision pass for one task, cached (prefix encoded once) or uncached (one
// full pass per decision with the same mask): both in one run, side by side.
nlohmann::ordered_json bench_task(Mind& mind, const Task& task, int decisions, bool cached) {
  std::vector<double> lat;
  for (int i = 0; i < decisions; ++i) {
    const auto& status = task.sanity[size_t(i) % task.sanity.size()].status;
    lat.push_back(cached ? mind.decide_status(task, status).lat_ms
                         : mind.decide_status_uncached(task, status).lat_ms);
  }
  return {{"p50_ms", percentile(lat, 0.5)}, {"p95_ms", percentile(lat, 0.95)}};
}

double median_ms(int reps, const std::function<void()>& f) {
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return percentile(t, 0.5);
}

// One uncached 128-token forward of the model (the next-token row only) beside the rate of
// our float32 sgemm path on a 128 x 2048 x 2048 product, measured in the same run: the
// forward's matrix-product GFLOP/s reads against what the machine's sgemm does.
nlohmann::ordered_json bench_forward(const Mind& mind, int threads) {
  const auto& m = mind.model();
  const auto& c = m.config();
  constexpr int64_t kTokens = 128;
  std::vector<int32_t> ids;
  const auto text = mind.tokenizer().encode(
      "The keeper climbed the lighthouse stairs, wiped the lens and wrote the weather in the log.",
      false);
  while (int64_t(ids.size()) < kTokens) ids.insert(ids.end(), text.begin(), text.end());
  ids.resize(kTokens);
  const model::Sequence seq{ids, {kTokens - 1}};
  model::RunOptions ro;
  ro.threads = threads;
  m.run({seq}, ro);  // warm the mapping
  const double fwd_ms = median_ms(3, [&] { m.run({seq}, ro); });
  const int64_t q = c.n_head * c.head_dim, kv = c.n_head_kv * c.head_dim;
  const double per_token = 2.0 * double(c.n_layer) *
                           double(c.n_embd * (q + 2 * kv) + q * c.n_embd + 3 * c.n_embd * c.n_ff);
  const double gflop = per_token * kTokens / 1e9 + 2.0 * double(c.n_embd * c.n_vocab) / 1e9;

  constexpr int64_t kN = 128, kDim = 2048;
  std::vector<float> w(size_t(kDim * kDim), 0.01f), x(size_t(kN * kDim), 0.5f),
      y(size_t(kN * kDim));
  const tensor::Weights wt{gguf::TensorType::F32, w.data(), kDim, kDim};
  tensor::matmul(wt, x.data(), kN, y.data(), tensor::Threads{threads});
  const double sg_ms =
      median_ms(5, [&] { tensor::matmul(wt, x.data(), kN, y.data(), tensor::Threads{threads}); });
  const double sg_gflop = 2.0 * double(kN * kDim * kDim) / 1e9;
  return {{"tokens", kTokens},
          {"ms", fwd_ms},
          {"tok_per_s", kTokens / (fwd_ms / 1e3)},
          {"matmul_gflop_per_s", gflop / (fwd_ms / 1e3)},
          {"sgemm_gflop_per_s", sg_gflop / (sg_ms / 1e3)}};
}

void run_bench(const BenchArgs& a) {
  MindOptions mo;
  mo.decide.threads = a.threads;
  mo.lora = a.lora;
  Mind mind(a.model, mo);
  nlohmann::ordered_json out;
  out["model"] = mind.model_path();
  if (!a.lora.empty()) out["lora"] = a.lora;
  out["machine"] = machine();
  out["threads"] = mind.options().decide.threads;
  out["decisions_per_task"] = a.decisions;
  nlohmann::ordered_json tasks = nlohmann::ordered_json::object();
  for (const auto& name : builtin_task_names()) {
    const BuiltinTask bt = builtin_task(name);
    // The first decision of a task also encodes its prefix (the cache): timed apart, by wall
    // clock around the call, since lat_ms covers the decision pass only.
    const auto t0 = std::chrono::steady_clock::now();
    mind.decide_status(bt.task, bt.task.sanity[0].status);
    const double first_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    tasks[name] = {{"cached", bench_task(mind, bt.task, a.decisions, true)},
                   {"uncached", bench_task(mind, bt.task, a.decisions, false)},
                   {"first_with_prefix_ms", first_ms},
                   {"n", a.decisions}};
  }
  out["tasks"] = tasks;
  if (!mind.reader()) out["forward"] = bench_forward(mind, mind.options().decide.threads);
  std::printf("%s\n", out.dump(2).c_str());
}

}  // namespace

void ensure_parent(const std::string& path) {
  const auto parent = std::filesystem::path(path).parent_path();
  if (parent.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(parent, ec);
  if (ec) throw Error("cannot create folder " + parent.string() + ": " + ec.message());
}

// Prints the exam table; false when the exam failed.
bool run_exam(Mind& mind, const Task& task) {
  // A reader's reading first when the exam will refuse it: the user sees what to reword.
  if (const reader::Reading* rd = mind.reading(task); rd && !rd->unreachable().empty()) {
    std::printf("how the rule was read:\n%s", reader::describe(*rd).c_str());
    std::fflush(stdout);
  }
  const ExamResult r = mind.exam(task);
  std::printf("exam of %s (model %s):\n%s", task.name.c_str(), mind.model_path().c_str(),
              exam_table(task, r).c_str());
  std::fflush(stdout);
  return r.ok;
}

namespace {

// A task by a built-in name or by a task file's path (ending in .toml, or naming a file).
struct NamedTask {
  BuiltinTask bt;
  std::optional<TaskSpec> spec;  // a task file's
  std::string path;
};

NamedTask task_named(const std::string& arg) {
  const bool file = arg.size() > 5 && arg.compare(arg.size() - 5, 5, ".toml") == 0;
  std::error_code ec;
  if (!file && !std::filesystem::is_regular_file(arg, ec)) return {builtin_task(arg), {}, ""};
  NamedTask out;
  out.spec = read_task_spec(arg);
  out.bt = make_task(*out.spec);
  out.path = arg;
  return out;
}

// A task file's longest possible status sentence must fit the model with the rule: found at
// check time, not in the middle of an episode.
void check_sentence_fits(Mind& mind, const NamedTask& t) {
  if (!t.spec || !t.spec->perceiver) return;
  const std::string longest = longest_sentence(*t.spec->perceiver);
  try {
    mind.decide_status(t.bt.task, longest);
  } catch (const Error& e) {
    throw Error(t.path + ": perceiver.sentence: its longest sentence (" +
                std::to_string(longest.size()) +
                " characters) does not fit the model: " + e.what());
  }
}

}  // namespace

void add_task_commands(CLI::App& app) {
  for (const auto& name : builtin_task_names()) {
    if (const BuiltinTask bt = builtin_task(name); bt.realtime) {
      add_realtime_task_command(app, bt);
      continue;
    }
    auto a = std::make_shared<PlayArgs>();
    a->task = name;
    auto* c = app.add_subcommand(name, "exam, then one episode with a GIF and a verdict: " +
                                           builtin_task(name).task.summary);
    add_play_options(c, a);
    c->callback([a] { run_task_command(a); });
  }

  auto json = std::make_shared<bool>(false);
  auto* l = app.add_subcommand("list", "the built-in tasks");
  l->add_flag("--json", *json, "every task's full definition (rule, options, exam) as JSON");
  l->callback([json] { print_list(*json); });

  auto ca = std::make_shared<PlayArgs>();
  auto* c = app.add_subcommand("check", "the exam of a task (exit 1 if it fails)");
  c->add_option("TASK", ca->task, "a built-in task (see list) or a task file (.toml)")->required();
  add_model_option(c, ca->model);
  add_lora_option(c, ca->lora);
  add_float_recheck_option(c, ca->float_recheck);
  c->callback([ca] {
    const NamedTask t = task_named(ca->task);
    Mind mind(ca->model, mind_options(ca->lora, ca->float_recheck));
    if (!run_exam(mind, t.bt.task)) throw Exit{1};
    check_sentence_fits(mind, t);
  });

  auto pa = std::make_shared<PlayArgs>();
  auto* p = app.add_subcommand("play", "play episodes of a task (no exam)");
  p->add_option("TASK", pa->task, "a built-in task (see list) or a task file (.toml)")->required();
  add_play_options(p, pa);
  p->add_option("--episodes", pa->episodes, "episodes (seeds follow the first)")
      ->check(CLI::Range(1, 100000));
  p->add_option("--memory", pa->memory, "working memory on or off (default: the task's)")
      ->check(CLI::IsMember({"on", "off"}));
  p->callback([pa] {
    NamedTask t = task_named(pa->task);  // unknown task, bad file: exit 2 before loading a model
    Mind mind(pa->model, mind_options(pa->lora));
    check_sentence_fits(mind, t);
    if (!play(t.bt, mind, *pa)) throw Exit{1};
  });

  auto ba = std::make_shared<BenchArgs>();
  auto* b = app.add_subcommand(
      "bench",
      "decision latency p50/p95 per built-in task, with and without the prefix cache (JSON)");
  add_model_option(b, ba->model);
  add_lora_option(b, ba->lora);
  b->add_option("--decisions", ba->decisions, "decisions per task and mode")
      ->check(CLI::Range(1, 1000000));
  b->add_option("--threads", ba->threads, "threads (0: the runtime's automatic choice)")
      ->check(CLI::Range(0, 1024));
  b->callback([ba] { run_bench(*ba); });
}

}  // namespace meadow::cli
