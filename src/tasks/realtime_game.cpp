#include "tasks/realtime_game.hpp"

#include <cmath>
#include <cstdio>

#include "envs/checked_env.hpp"
#include "meadow/error.hpp"

namespace meadow::tasks {

RealtimeGame::RealtimeGame(const Task& task, const RealtimeOptions& opts)
    : opts_(opts), options_(task.options) {
  if (!(opts.frame_s > 0) || !std::isfinite(opts.frame_s))
    throw Error("real-time run: frame_s must be a positive number of seconds");
  if (!(opts.time_limit_s > 0) || !std::isfinite(opts.time_limit_s))
    throw Error("real-time run: time_limit_s must be a positive number of seconds");
  owner_ = make(task.env_id, opts.env_kwargs.is_null() ? task.env_kwargs : opts.env_kwargs);
  // make() wraps every env in its order and action checks; the clock lives in the game itself.
  auto* checked = dynamic_cast<envs::CheckedEnv*>(owner_.get());
  env_ = dynamic_cast<envs::TimedEnv*>(checked ? &checked->inner() : owner_.get());
  if (!env_)
    throw Error("task " + task.name + ": " + task.env_id +
                " is not a real-time game (Parkour-v0, Shapes-v0); play it with `play`");
  episode_.seed = opts.seed;
  episode_.reset_obs = owner_->reset(opts.seed).obs;
  capture();
  next_frame_ = opts.frame_s;
}

RealtimeGame::~RealtimeGame() = default;

GameState RealtimeGame::state() const {
  return {env_->observe(), env_->challenge(), env_->clock()};
}

bool RealtimeGame::over() const {
  return terminated_ || env_->clock() >= opts_.time_limit_s;
}

void RealtimeGame::advance_to(double t) {
  t = std::min(t, opts_.time_limit_s);
  while (!terminated_ && env_->clock() < t) {
    const double stop = std::min(t, next_frame_);
    const int64_t before = env_->challenge();
    const StepResult s = env_->advance(std::max(0.0, stop - env_->clock()));
    episode_.total_reward += s.reward;
    terminated_ = s.terminated;
    const bool frame_due = env_->clock() >= next_frame_;
    if (frame_due) next_frame_ += opts_.frame_s;
    if (frame_due || before != env_->challenge() || terminated_) capture();
  }
}

void RealtimeGame::answer(Decided d, const GameState& read) {
  TimedDecision rec;
  rec.challenge = read.challenge;
  rec.read_s = read.t;
  rec.answer_s = env_->clock();
  rec.in_time = !terminated_ && read.challenge >= 0 && env_->challenge() == read.challenge;
  EpisodeStep step{int64_t(decisions_.size()), std::move(d.info), std::move(d.action), {}, 0.0};
  bool changed = false;
  if (rec.in_time) {
    const Values before = env_->observe();
    const StepResult s = env_->act(step.action);
    step.reward = s.reward;
    episode_.total_reward += s.reward;
    terminated_ = s.terminated;
    changed = s.obs != before;
  }
  step.obs = env_->observe();
  decisions_.push_back(rec);
  episode_.steps.push_back(std::move(step));
  // A frame for every answer that moved something, and for every late one (the "late" mark).
  if (changed || !rec.in_time) capture();
}

std::vector<std::string> RealtimeGame::caption() const {
  char head[48];
  std::snprintf(head, sizeof head, "t=%.3f s  ", env_->clock());
  if (decisions_.empty()) return {std::string(head) + "waiting for the first answer", ""};
  const TimedDecision& t = decisions_.back();
  const DecisionInfo& d = episode_.steps.back().decision;
  std::string act;
  for (const auto& o : options_)
    if (o.letter == d.letter) act = o.act.empty() ? o.text : o.act;
  char tail[96];
  std::snprintf(tail, sizeof tail, "  read %.3f s, answered %.3f s%s", t.read_s, t.answer_s,
                t.in_time ? "" : "  LATE");
  return {std::string(head) + d.status, std::string(1, d.letter) + ") " + act + tail};
}

void RealtimeGame::capture() {
  shots_.push_back({env_->scene(), env_->clock(), caption()});
}

RealtimeResult RealtimeGame::finish(const Task& task, bool simulated) {
  capture();  // the final picture
  RealtimeResult r;
  r.simulated = simulated;
  r.game_s = env_->clock();
  episode_.terminated = terminated_;
  episode_.truncated = !terminated_;
  std::vector<double> lat;
  for (const auto& d : decisions_) r.late += !d.in_time;
  for (const auto& s : episode_.steps) lat.push_back(s.decision.lat_ms);
  r.p50_ms = percentile(lat, 0.5);
  r.p95_ms = percentile(lat, 0.95);
  if (!opts_.gif_path.empty()) {
    std::vector<RealtimeShot> shots;
    for (const auto& s : shots_) shots.push_back({&s.scene, s.t, &s.caption});
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
