// The episode runner: one real decision per step, recorded to a trace, a GIF and a verdict.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>

#include "meadow/env.hpp"
#include "meadow/error.hpp"
#include "meadow/render.hpp"
#include "meadow/tasks.hpp"

namespace meadow {
namespace {

// The state key loop detection counts: the task's memory key when it has one, else the
// observation itself.
std::string state_key(const Task& task, const Values& obs) {
  if (task.mem_key) return task.mem_key(obs);
  return nlohmann::json(obs).dump();
}

std::string caption_choice(const Task& task, const Decision& info) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "  (p=%.2f)", info.prob(info.letter));
  return std::string(1, info.letter) + ") " + task.option_text(info.letter) + buf;
}

// One stderr line rewritten in place; silent unless stderr is a terminal.
class Progress {
 public:
  explicit Progress(bool wanted) : on_(wanted && isatty(fileno(stderr))) {}
  ~Progress() {
    if (on_ && shown_) std::fputs("\r\033[K", stderr);
  }
  void show(const Task& task, uint64_t seed, int64_t step, double reward) {
    if (!on_) return;
    std::fprintf(stderr, "\r\033[K%s seed %llu: step %lld/%lld, reward %.1f", task.name.c_str(),
                 static_cast<unsigned long long>(seed), static_cast<long long>(step),
                 static_cast<long long>(task.max_steps), reward);
    std::fflush(stderr);
    shown_ = true;
  }

 private:
  bool on_;
  bool shown_ = false;
};

}  // namespace

double percentile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const double rank = std::ceil(std::clamp(q, 0.0, 1.0) * double(values.size()));
  const size_t i = rank < 1 ? 0 : size_t(rank) - 1;
  return values[std::min(i, values.size() - 1)];
}

DecideFn mind_decider(Mind& mind) {
  return [&mind](Task& task, const Values& obs) { return mind.decide(task, obs); };
}

RunResult run_episode(Task& task, const DecideFn& decide, const RunOptions& opts) {
  validate(task);
  if (!task.perceive) throw Error("task " + task.name + " has no perceiver: it cannot be played");
  auto env = make(task.env_id, task.env_kwargs);
  task.forget();

  std::unique_ptr<GifWriter> gif;
  if (!opts.gif_path.empty()) gif = std::make_unique<GifWriter>(opts.gif_path);
  std::unique_ptr<TraceWriter> trace;
  if (!opts.trace_path.empty()) trace = std::make_unique<TraceWriter>(opts.trace_path);
  CaptionStyle caption;
  caption.fixed_lines = 3;  // status may wrap to two lines; one size for every frame

  RunResult out;
  Episode& ep = out.episode;
  ep.seed = opts.seed;
  ep.reset_obs = env->reset(opts.seed).obs;
  Values obs = ep.reset_obs;
  std::map<std::string, int> seen_states;
  Progress progress(opts.progress);
  std::vector<double> lat;

  for (int64_t t = 0; t < task.max_steps; ++t) {
    if (!task.memory && !out.loop_hint) {
      const std::string key = state_key(task, obs);
      if (++seen_states[key] >= opts.loop_repeats)
        out.loop_hint = "looping: the same state came back " + std::to_string(opts.loop_repeats) +
                        " times with memory off (step " + std::to_string(t) + "); try --memory on";
    }
    Decided d = decide(task, obs);
    if (gif)
      gif->add(with_caption(render(*env), {d.info.status, caption_choice(task, d.info)}, caption),
               opts.gif_delay_ms);
    StepResult sr = env->step(d.action);
    EpisodeStep rec{t, std::move(d.info), std::move(d.action), sr.obs, sr.reward};
    if (trace) trace->write(rec, task.act_text(rec.decision.letter));
    lat.push_back(rec.decision.lat_ms);
    ep.total_reward += sr.reward;
    ep.steps.push_back(std::move(rec));
    obs = std::move(sr.obs);
    progress.show(task, opts.seed, t + 1, ep.total_reward);
    if (sr.terminated || sr.truncated) {
      ep.terminated = sr.terminated;
      ep.truncated = sr.truncated;
      break;
    }
  }
  if (!ep.terminated && !ep.truncated && int64_t(ep.steps.size()) >= task.max_steps)
    ep.truncated = true;
  if (gif) {
    out.gif_frames = gif->frames();
    gif->close();
  }
  if (trace) trace->close();
  out.p50_ms = percentile(lat, 0.50);
  out.p95_ms = percentile(lat, 0.95);
  out.verdict = task.judge ? task.judge(ep)
                           : Verdict{true, "played " + std::to_string(ep.steps.size()) + " steps"};
  return out;
}

}  // namespace meadow
