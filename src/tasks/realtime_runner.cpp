// The real-time runner (meadow/realtime.hpp): the game clock in its own thread, the mind in
// the calling thread; or, for tests, simulated time with a given decision latency.
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include "meadow/error.hpp"
#include "meadow/realtime.hpp"
#include "tasks/realtime_game.hpp"

namespace meadow {
namespace {

using tasks::GameState;
using tasks::RealtimeGame;

// One decision after another on the state as it is when the previous answer has landed; the
// world moves on for latency(info) game seconds while each one is "thinking".
void play_simulated(RealtimeGame& game, Task& task, const DecideFn& decide,
                    const RealtimeOptions& opts) {
  while (!game.over()) {
    const GameState read = game.state();
    Decided d = decide(task, read.obs);
    const double lat = opts.latency(d.info);
    if (!(lat > 0) || !std::isfinite(lat))
      throw Error("real-time run: the latency function must give a positive number of seconds");
    game.advance_to(read.t + lat);
    game.answer(std::move(d), read);
  }
}

// The game thread's side of the hand-over: the answer waiting to be applied.
struct Posted {
  Decided d;
  GameState read;
};

// Real time. The game thread ticks about every millisecond (at once when an answer arrives):
// it moves the world to now, applies the waiting answer, and publishes the new state. The mind
// reads the latest published state, decides without holding the lock, hands the answer over
// and waits until the game has applied it, so its next read already shows its own move.
void play_realtime(RealtimeGame& game, Task& task, const DecideFn& decide) {
  std::mutex m;
  std::condition_variable cv;
  std::optional<Posted> posted;
  GameState published = game.state();
  bool done = false;
  std::exception_ptr game_error;
  const auto start = std::chrono::steady_clock::now();
  auto now_s = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };

  std::thread clock_thread([&] {
    std::unique_lock lock(m);
    try {
      while (!done) {
        game.advance_to(now_s());
        if (posted) {
          game.answer(std::move(posted->d), posted->read);
          posted.reset();
        }
        published = game.state();
        if (game.over()) done = true;
        cv.notify_all();
        if (!done) cv.wait_for(lock, std::chrono::milliseconds(1), [&] { return posted || done; });
      }
    } catch (...) {
      game_error = std::current_exception();
      done = true;
      cv.notify_all();
    }
  });

  std::exception_ptr mind_error;
  try {
    for (;;) {
      GameState read;
      {
        std::lock_guard lock(m);
        if (done) break;
        read = published;
      }
      Decided d = decide(task, read.obs);  // the game keeps running meanwhile
      std::unique_lock lock(m);
      if (done) break;
      posted = Posted{std::move(d), std::move(read)};
      cv.notify_all();
      cv.wait(lock, [&] { return !posted || done; });
    }
  } catch (...) {
    mind_error = std::current_exception();
  }
  {
    std::lock_guard lock(m);
    done = true;
    cv.notify_all();
  }
  clock_thread.join();
  if (game_error) std::rethrow_exception(game_error);
  if (mind_error) std::rethrow_exception(mind_error);
}

}  // namespace

RealtimeResult run_realtime(Task& task, const DecideFn& decide, const RealtimeOptions& opts) {
  validate(task);
  if (!task.perceive) throw Error("task " + task.name + " has no perceiver: it cannot be played");
  const auto world = tasks::env_world(task, opts.env_kwargs);
  return run_realtime(task, *world, decide, opts);
}

RealtimeResult run_realtime(Task& task, RealtimeWorld& world, const DecideFn& decide,
                            const RealtimeOptions& opts) {
  validate(task);
  if (!task.perceive) throw Error("task " + task.name + " has no perceiver: it cannot be played");
  task.forget();
  RealtimeGame game(world, task, opts);
  if (opts.latency)
    play_simulated(game, task, decide, opts);
  else
    play_realtime(game, task, decide);
  return game.finish(task, bool(opts.latency));
}

}  // namespace meadow
