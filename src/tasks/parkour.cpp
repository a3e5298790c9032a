// parkour: a runner in three lanes dodges walls that come faster and faster, in real time
// (Parkour-v0). The perceiver names where the free lane is, how close the wall is and how
// fast it closes; the rule moves toward the free lane.
#include <cmath>
#include <string>

#include "tasks/builtin.hpp"

namespace meadow::tasks {
namespace {

// Perception. The free lane is the one the wall leaves open; "to the left/right" is the way
// to it from the runner's lane (one step at a time: a free lane two lanes away still reads
// "to the left" until the runner stands beside it). The wall's distance and speed are the
// urgency words.
std::string perceive(const Values& obs) {
  const int lane = int(obs.at(0));
  const double dist = obs.at(1), speed = obs.at(2);
  int free_lane = -1;
  for (int l = 0; l < 3; ++l)
    if (obs.at(size_t(3 + l)) == 0) free_lane = l;
  if (obs.at(6) == 0 || free_lane < 0) return "you are in the free lane and no wall is coming";
  const std::string where = free_lane == lane  ? "you are in the free lane"
                            : free_lane < lane ? "the free lane is to the left"
                                               : "the free lane is to the right";
  const int metres = int(std::ceil(dist));
  const std::string pace = speed < 10 ? "slowly" : speed < 20 ? "fast" : "very fast";
  return where + ", the wall is " + std::to_string(metres) + (metres == 1 ? " metre" : " metres") +
         " away and closing " + pace;
}

}  // namespace

BuiltinTask make_parkour_task() {
  BuiltinTask bt;
  Task& t = bt.task;
  t.name = "parkour";
  t.summary = "dodge 6 walls coming down three lanes, each faster, in real time (Parkour-v0)";
  t.perceive = perceive;
  t.rule =
      "If the free lane is to the left, choose B. If the free lane is to the right, choose C. If "
      "you are in the free lane, choose A.";
  t.options = {{'A', "stay in your lane", {0}, "stay"},
               {'B', "move one lane left", {1}, "left"},
               {'C', "move one lane right", {2}, "right"}};
  t.sanity = {
      {"the free lane is to the left, the wall is 18 metres away and closing slowly", 'B'},
      {"the free lane is to the right, the wall is 12 metres away and closing fast", 'C'},
      {"you are in the free lane, the wall is 9 metres away and closing fast", 'A'},
      {"the free lane is to the right, the wall is 4 metres away and closing very fast", 'C'},
      {"the free lane is to the left, the wall is 2 metres away and closing very fast", 'B'},
      {"you are in the free lane, the wall is 17 metres away and closing very fast", 'A'},
      {"the free lane is to the left, the wall is 7 metres away and closing fast", 'B'},
      {"you are in the free lane, the wall is 1 metre away and closing slowly", 'A'},
      {"the free lane is to the right, the wall is 20 metres away and closing slowly", 'C'},
  };
  t.env_id = "Parkour-v0";
  t.max_steps = 2000;  // turn-based play (`play`): 0.05 s a step, far past the last wall
  t.judge = [](const Episode& ep) { return six_of_six(ep, "cleared", "obstacles"); };

  bt.seeds = {0};
  bt.target = "6/6 obstacles cleared in real time";
  bt.realtime = true;
  bt.judge_all = six_on_every_seed("cleared", "obstacles");
  return bt;
}

}  // namespace meadow::tasks
