// The game side of a real-time run (meadow/realtime.hpp): the env, its clock, the answers as
// they arrive, the frames for the GIF. One thread uses it at a time (the game thread in real
// time; the only thread in simulated time).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "envs/timed_env.hpp"
#include "meadow/realtime.hpp"
#include "meadow/scene.hpp"

namespace meadow::tasks {

// What the mind may read: the state the game last published.
struct GameState {
  Values obs;
  int64_t challenge = -1;
  double t = 0;  // game time of the state
};

class RealtimeGame {
 public:
  // Resets the world (which must outlive the game).
  RealtimeGame(RealtimeWorld& world, const Task& task, const RealtimeOptions& opts);
  ~RealtimeGame();

  // Moves the world to game time t (no-op when t is not past the clock), with a frame every
  // frame_s of game time and one at every change of challenge.
  void advance_to(double t);
  // An answer reaches the game now: applied if the question it answers is still open, else
  // recorded as late. Either way it becomes the caption of the frames that follow.
  void answer(Decided d, const GameState& read);
  GameState state() const;
  bool over() const;  // the episode ended, or the time limit passed
  double clock() const { return world_.clock(); }

  // Fills the result (episode, decisions, verdict, latencies) and writes the GIF and trace.
  RealtimeResult finish(const Task& task, bool simulated);

 private:
  void capture();
  std::vector<std::string> caption() const;

  struct Shot {
    std::function<Frame()> picture;
    double t;
    std::vector<std::string> caption;
  };
  const RealtimeOptions& opts_;
  std::vector<Option> options_;  // a copy: captions never read the task the mind is using
  RealtimeWorld& world_;
  Episode episode_;
  std::vector<TimedDecision> decisions_;
  std::vector<Shot> shots_;
  double next_frame_ = 0;
  bool terminated_ = false;
};

// The GIF (delays = game time between frames) and the JSON-lines trace of a finished run.
struct RealtimeShot {
  const std::function<Frame()>* picture;
  double t;
  const std::vector<std::string>* caption;
};

// A built-in real-time env (Parkour-v0, Shapes-v0) as a world; throws meadow::Error naming the
// task for an env that is not a real-time game.
std::unique_ptr<RealtimeWorld> env_world(const Task& task, const nlohmann::json& env_kwargs);
int write_realtime_gif(const std::string& path, const std::vector<RealtimeShot>& shots);
void write_realtime_trace(const std::string& path, const Episode& episode,
                          const std::vector<TimedDecision>& decisions);

}  // namespace meadow::tasks
