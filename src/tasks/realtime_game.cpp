#include "tasks/realtime_game.hpp"

#include <cmath>
#include <cstdio>

#include "envs/checked_env.hpp"
#include "meadow/error.hpp"
#include "meadow/render.hpp"

namespace meadow::tasks {

namespace {

// A built-in timed env seen as a world: make() wraps every env in its order and action checks;
// the clock lives in the game itself.
class EnvWorld final : public RealtimeWorld {
 public:
  EnvWorld(std::unique_ptr<Env> owner, envs::TimedEnv& env) : owner_(std::move(owner)), env_(env) {}
  Values reset(uint64_t seed) override { return owner_->reset(seed).obs; }
  double clock() const override { return env_.clock(); }
  StepResult advance(double seconds) override { return env_.advance(seconds); }
  StepResult act(const Values& action) override { return env_.act(action); }
  int64_t challenge() const override { return env_.challenge(); }
  Values observe() const override { return env_.observe(); }
  std::function<Frame()> picture() const override {
    return [scene = env_.scene()] { return rasterize(scene); };
  }

 private:
  std::unique_ptr<Env> owner_;  // the CheckedEnv make() returned
  envs::TimedEnv& env_;
};

}  // namespace

std::unique_ptr<RealtimeWorld> env_world(const Task& task, const nlohmann::json& env_kwargs) {
  auto owner = make(task.env_id, env_kwargs.is_null() ? task.env_kwargs : env_kwargs);
  auto* checked = dynamic_cast<envs::CheckedEnv*>(owner.get());
  auto* timed = dynamic_cast<envs::TimedEnv*>(checked ? &checked->inner() : owner.get());
  if (!timed)
    throw Error("task " + task.name + ": " + task.env_id +
                " is not a real-time game (Parkour-v0, Shapes-v0); play it with `play`");
  return std::make_unique<EnvWorld>(std::move(owner), *timed);
}

RealtimeGame::RealtimeGame(RealtimeWorld& world, const Task& task, const RealtimeOptions& opts)
    : opts_(opts), options_(task.options), world_(world) {
  if (!(opts.frame_s > 0) || !std::isfinite(opts.frame_s))
    throw Error("real-time run: frame_s must be a positive number of seconds");
  if (!(opts.time_limit_s > 0) || !std::isfinite(opts.time_limit_s))
    throw Error("real-time run: time_limit_s must be a positive number of seconds");
  episode_.seed = opts.seed;
  episode_.reset_obs = world_.reset(opts.seed);
  capture();
  next_frame_ = opts.frame_s;
}

RealtimeGame::~RealtimeGame() = default;

GameState RealtimeGame::state() const {
  return {world_.observe(), world_.challenge(), world_.clock()};
}

bool RealtimeGame::over() const {
  return terminated_ || world_.clock() >= opts_.time_limit_s;
}

void RealtimeGame::advance_to(double t) {
  t = std::min(t, opts_.time_limit_s);
  while (!terminated_ && world_.clock() < t) {
    const double stop = std::min(t, next_frame_);
    const int64_t before = world_.challenge();
    const StepResult s = world_.advance(std::max(0.0, stop - world_.clock()));
    episode_.total_reward += s.reward;
    terminated_ = s.terminated;
    const bool frame_due = world_.clock() >= next_frame_;
    if (frame_due) next_frame_ += opts_.frame_s;
    if (frame_due || before != world_.challenge() || terminated_) capture();
  }
}

void RealtimeGame::answer(Decided d, const GameState& read) {
  TimedDecision rec;
  rec.challenge = read.challenge;
  rec.read_s = read.t;
  rec.answer_s = world_.clock();
  rec.in_time = !terminated_ && read.challenge >= 0 && world_.challenge() == read.challenge;
  EpisodeStep step{int64_t(decisions_.size()), std::move(d.info), std::move(d.action), {}, 0.0};
  bool changed = false;
  if (rec.in_time) {
    const Values before = world_.observe();
    const StepResult s = world_.act(step.action);
    step.reward = s.reward;
    episode_.total_reward += s.reward;
    terminated_ = s.terminated;
    changed = s.obs != before;
  }
  step.obs = world_.observe();
  decisions_.push_back(rec);
  episode_.steps.push_back(std::move(step));
  // A frame for every answer that moved something, and for every late one (the "late" mark).
  if (changed || !rec.in_time) capture();
}

std::vector<std::string> RealtimeGame::caption() const {
  char head[48];
  std::snprintf(head, sizeof head, "t=%.3f s  ", world_.clock());
  if (decisions_.empty()) return {std::string(head) + "waiting for the first answer", ""};
  const TimedDecision& t = decisions_.back();
  const Decision& d = episode_.steps.back().decision;
  std::string act;
  for (const auto& o : options_)
    if (o.letter == d.letter) act = o.act.empty() ? o.text : o.act;
  char tail[96];
  std::snprintf(tail, sizeof tail, "  read %.3f s, answered %.3f s%s", t.read_s, t.answer_s,
                t.in_time ? "" : "  LATE");
  return {std::string(head) + d.status, std::string(1, d.letter) + ") " + act + tail};
}

void RealtimeGame::capture() {
  shots_.push_back({world_.picture(), world_.clock(), caption()});
}

RealtimeResult RealtimeGame::finish(const Task& task, bool simulated) {
  capture();  // the final picture
  RealtimeResult r;
  r.simulated = simulated;
  r.game_s = world_.clock();
  episode_.terminated = terminated_;
  episode_.truncated = !terminated_;
  std::vector<double> lat;
  for (const auto& d : decisions_) r.late += !d.in_time;
  for (const auto& s : episode_.steps) lat.push_back(s.decision.lat_ms);
  r.p50_ms = percentile(lat, 0.5);
  r.p95_ms = percentile(lat, 0.95);
  if (!opts_.gif_path.empty()) {
    std::vector<RealtimeShot> shots;
    for (const auto& s : shots_)
      if (s.picture) shots.push_back({&s.picture, s.t, &s.caption});
    r.gif_frames = write_realtime_gif(opts_.gif_path, shots);
  }
  if (!opts_.trace_path.empty()) write_realtime_trace(opts_.trace_path, episode_, decisions_);
  r.episode = std::move(episode_);
  r.decisions = std::move(decisions_);
  r.verdict = task.judge ? task.judge(r.episode)
                         : Verdict{true, "scored " + std::to_string(r.episode.total_reward)};
  return r;
}

}  // namespace meadow::tasks
