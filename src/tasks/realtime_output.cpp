// A real-time run's files: the GIF, whose frame delays are the game time between frames (in
// real time, wall-clock time), and the JSON-lines trace of every decision.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "meadow/error.hpp"
#include "meadow/render.hpp"
#include "tasks/realtime_game.hpp"
#include "util/atomic_file.hpp"

namespace meadow::tasks {

int write_realtime_gif(const std::string& path, const std::vector<RealtimeShot>& shots) {
  GifWriter gif(path);
  CaptionStyle style;
  style.fixed_lines = 3;  // status may wrap to two lines; one size for every frame
  style.font_size = 12;
  for (size_t i = 0; i < shots.size(); ++i) {
    // The last frame is held a second so a looping GIF shows how it ended.
    const double next = i + 1 < shots.size() ? shots[i + 1].t : shots[i].t + 1.0;
    const int delay_ms = int(std::lround(std::max(0.0, next - shots[i].t) * 1000));
    gif.add(with_caption((*shots[i].picture)(), *shots[i].caption, style), delay_ms);
  }
  const int n = gif.frames();
  gif.close();
  return n;
}

void write_realtime_trace(const std::string& path, const Episode& episode,
                          const std::vector<TimedDecision>& decisions) {
  if (decisions.size() != episode.steps.size())
    throw Error("trace: " + std::to_string(decisions.size()) + " timed decisions for " +
                std::to_string(episode.steps.size()) + " steps");
  try {
    util::AtomicFile file(path);
    std::FILE* f = file.stream();
    for (size_t i = 0; i < decisions.size(); ++i) {
      const TimedDecision& t = decisions[i];
      const EpisodeStep& s = episode.steps[i];
      nlohmann::ordered_json j;
      j["decision"] = s.step;
      j["status"] = s.decision.status;
      j["letter"] = std::string(1, s.decision.letter);
      j["action"] = s.action;
      j["challenge"] = t.challenge;
      j["read_s"] = t.read_s;
      j["answer_s"] = t.answer_s;
      j["lat_ms"] = s.decision.lat_ms;
      j["in_time"] = t.in_time;
      const std::string line =
          j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
      if (std::fwrite(line.data(), 1, line.size(), f) != line.size())
        throw Error("cannot write trace file " + path);
    }
    file.commit();
  } catch (const Error& e) {
    throw Error(std::string("trace: ") + e.what());
  }
}

}  // namespace meadow::tasks
