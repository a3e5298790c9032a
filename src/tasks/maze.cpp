// maze: leave the funnel room by its one exit. Without working memory the runner is drawn
// into the dead-end pocket next to the exit and loops there; with memory it backs out.
#include <array>
#include <cstdlib>
#include <tuple>

#include "envs/maze.hpp"
#include "tasks/builtin.hpp"

namespace meadow::tasks {
namespace {

constexpr std::array<const char*, 4> kWord{"left", "down", "right", "up"};  // maze actions

std::string cell_key(const Values& obs) {
  return std::to_string(int64_t(obs.at(0)));
}

// Perception. "The open path" is the open neighbour that brings the runner closest to the
// exit; with working memory on, the one visited least so far first (ties: closest to the
// exit). The exit's distance in cells as the crow flies is the trend word; with memory on,
// how often the runner has stood here.
std::string perceive(const envs::MazeGrid& g, const Values& obs, const Task& task) {
  const int64_t s = int64_t(obs.at(0));
  const int r = g.row_of(s), c = g.col_of(s);
  const int er = g.row_of(g.exit), ec = g.col_of(g.exit);
  int best = -1;
  std::tuple<int64_t, int, int> best_score{};
  for (int a = 0; a < 4; ++a) {
    const int rr = r + envs::kMazeMoves[a][0], cc = c + envs::kMazeMoves[a][1];
    if (!g.open(rr, cc)) continue;
    const int64_t visits = task.visits(std::to_string(g.cell(rr, cc)));
    const std::tuple<int64_t, int, int> score{visits, std::abs(er - rr) + std::abs(ec - cc), a};
    if (best < 0 || score < best_score) best = a, best_score = score;
  }
  std::string out = "the open path is heading ";
  out += best < 0 ? "nowhere" : kWord[best];
  const int dist = std::abs(er - r) + std::abs(ec - c);
  out += ", the exit is " + std::to_string(dist) + (dist == 1 ? " cell away" : " cells away");
  if (task.memory) {
    const int64_t here = task.visits(std::to_string(s));
    out += here == 0 ? ", this cell is new"
                     : ", you were here " +
                           std::string(here == 1   ? "once"
                                       : here == 2 ? "twice"
                                                   : "many times") +
                           " before";
  }
  return out;
}

}  // namespace

BuiltinTask make_maze_task() {
  BuiltinTask bt;
  Task& t = bt.task;
  t.name = "maze";
  t.summary = "leave a funnel maze whose dead-end pocket traps a runner without memory";
  const envs::MazeGrid grid(envs::funnel_maze_layout());
  t.perceive = [grid](const Values& obs, const Task& task) { return perceive(grid, obs, task); };
  t.rule = "Go where the open path is heading.";
  t.options = {{'A', "go left", {0}, "left"},
               {'B', "go down", {1}, "down"},
               {'C', "go right", {2}, "right"},
               {'D', "go up", {3}, "up"}};
  t.sanity = {
      {"the open path is heading up, the exit is 10 cells away", 'D'},
      {"the open path is heading right, the exit is 6 cells away", 'C'},
      {"the open path is heading down, the exit is 3 cells away", 'B'},
      {"the open path is heading left, the exit is 3 cells away", 'A'},
      {"the open path is heading down, the exit is 2 cells away, you were here twice before", 'B'},
      {"the open path is heading left, the exit is 4 cells away, this cell is new", 'A'},
      {"the open path is heading up, the exit is 5 cells away, you were here once before", 'D'},
      {"the open path is heading right, the exit is 8 cells away, you were here many times before",
       'C'},
  };
  t.memory = true;
  t.mem_key = cell_key;
  t.env_id = "FunnelMaze-v0";
  t.max_steps = 200;
  t.judge = [](const Episode& ep) {
    const auto n = std::to_string(ep.steps.size());
    if (ep.terminated) return Verdict{true, "reached the exit in " + n + " steps"};
    return Verdict{false, "did not reach the exit in " + n + " steps"};
  };
  bt.seeds = {0};
  bt.target = "the exit with memory on (memory off: the runner loops in the pocket)";
  bt.judge_all = [judge = t.judge](const std::vector<Episode>& eps) {
    size_t ok = 0;
    for (const auto& e : eps) ok += judge(e).ok;
    return Verdict{!eps.empty() && ok == eps.size(), "exit reached in " + std::to_string(ok) + "/" +
                                                         std::to_string(eps.size()) + " episodes"};
  };
  return bt;
}

}  // namespace meadow::tasks
