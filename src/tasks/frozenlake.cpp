// frozenlake: walk the 8x8 lake (not slippery) to the goal on the shortest path, 14 steps.
#include <array>
#include <cstdlib>
#include <vector>

#include "envs/frozen_lake_maps.hpp"
#include "tasks/builtin.hpp"

namespace meadow::tasks {
namespace {

// FrozenLake's actions: 0 left, 1 down, 2 right, 3 up.
constexpr std::array<std::array<int, 2>, 4> kStep{{{0, -1}, {1, 0}, {0, 1}, {-1, 0}}};
constexpr std::array<const char*, 4> kWord{"left", "down", "right", "up"};
constexpr std::array<const char*, 4> kBeside{"to the left", "below", "to the right", "above"};

// Perception: the way toward the goal that does not end in a hole (of the two moves that
// bring the goal closer, the one along the longer remaining distance, else the other), the
// distance left (the trend: it shrinks each step) and any hole next to the walker.
std::string perceive(const envs::LakeMap& map, const Values& obs) {
  const int n = int(map.size());
  const int s = int(obs.at(0)), r = s / n, c = s % n;
  int gr = 0, gc = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (map[i][j] == 'G') gr = i, gc = j;
  auto cell = [&](int a) -> char {
    const int rr = r + kStep[a][0], cc = c + kStep[a][1];
    return rr < 0 || cc < 0 || rr >= n || cc >= n ? '#' : map[rr][cc];
  };
  const int dr = gr - r, dc = gc - c;
  const int vert = dr > 0 ? 1 : 3, horiz = dc > 0 ? 2 : 0;
  // Moves that shrink the distance, the one along the longer remaining distance first.
  std::vector<int> toward;
  const bool horiz_first = std::abs(dc) >= std::abs(dr);
  if (dc != 0 && horiz_first) toward.push_back(horiz);
  if (dr != 0) toward.push_back(vert);
  if (dc != 0 && !horiz_first) toward.push_back(horiz);
  int way = -1;
  for (int a : toward)
    if (way < 0 && cell(a) != 'H' && cell(a) != '#') way = a;
  for (int a = 0; a < 4 && way < 0; ++a)
    if (cell(a) != 'H' && cell(a) != '#') way = a;
  std::string out = "the goal lies ";
  out += way < 0 ? "nowhere safe" : kWord[way];
  const int dist = std::abs(dr) + std::abs(dc);
  out += ", " + std::to_string(dist) + (dist == 1 ? " step away" : " steps away");
  for (int a = 0; a < 4; ++a)
    if (cell(a) == 'H') {
      out += ", and a hole is ";
      out += kBeside[a];
      break;
    }
  return out;
}

}  // namespace

BuiltinTask make_frozenlake_task() {
  BuiltinTask bt;
  Task& t = bt.task;
  t.name = "frozenlake";
  t.summary = "cross the 8x8 frozen lake (not slippery) to the goal in 14 steps (FrozenLake-v1)";
  const envs::LakeMap map = envs::frozen_lake_named_map("8x8");
  t.perceive = [map](const Values& obs) { return perceive(map, obs); };
  t.rule = "Walk toward the goal over safe ice and never step into a hole.";
  t.options = {{'A', "walk left", {0}, "left"},
               {'B', "walk down", {1}, "down"},
               {'C', "walk right", {2}, "right"},
               {'D', "walk up", {3}, "up"}};
  t.sanity = {
      {"the goal lies right, 14 steps away", 'C'},
      {"the goal lies down, 9 steps away, and a hole is to the right", 'B'},
      {"the goal lies right, 8 steps away, and a hole is below", 'C'},
      {"the goal lies down, 3 steps away, and a hole is to the left", 'B'},
      {"the goal lies left, 2 steps away", 'A'},
      {"the goal lies up, 4 steps away, and a hole is to the right", 'D'},
      {"the goal lies up, 1 step away", 'D'},
      {"the goal lies left, 5 steps away, and a hole is above", 'A'},
      {"the goal lies right, 1 step away, and a hole is above", 'C'},
  };
  t.env_id = "FrozenLake-v1";
  t.env_kwargs = {{"map_name", "8x8"}, {"is_slippery", false}};
  t.max_steps = 100;
  t.judge = [](const Episode& ep) {
    const auto n = ep.steps.size();
    const bool goal = ep.terminated && ep.total_reward > 0;
    if (goal)
      return Verdict{n == 14,
                     "reached the goal in " + std::to_string(n) + " steps (shortest path: 14)"};
    if (ep.terminated)
      return Verdict{false, "fell into a hole after " + std::to_string(n) + " steps"};
    return Verdict{false, "did not reach the goal in " + std::to_string(n) + " steps"};
  };
  bt.seeds = {0};
  bt.target = "the goal in 14 steps (the shortest path)";
  bt.judge_all = [judge = t.judge](const std::vector<Episode>& eps) {
    size_t ok = 0;
    for (const auto& e : eps) ok += judge(e).ok;
    return Verdict{!eps.empty() && ok == eps.size(), "goal in 14 steps on " + std::to_string(ok) +
                                                         "/" + std::to_string(eps.size()) +
                                                         " episodes"};
  };
  return bt;
}

}  // namespace meadow::tasks
