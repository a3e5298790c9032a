// A task of your own: a walker on an open field looks for a lamp. You write the perceiver
// (numbers -> one sentence), the rule (words), the options (letter -> action) and an exam;
// the mind reads the rule and the sentence and answers a letter, one forward pass a step.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "meadow/mind.hpp"

// The observation: {walker x, walker y, lamp x, lamp y}; north is +y, east is +x.
std::string perceive(const meadow::Values& obs) {
  const int dx = int(obs[2] - obs[0]), dy = int(obs[3] - obs[1]);
  // Name the way with the longer distance left; the sentence is all the mind sees.
  const bool along_x = std::abs(dx) >= std::abs(dy);
  const std::string way = along_x ? (dx > 0 ? "east" : "west") : (dy > 0 ? "north" : "south");
  const int steps = std::abs(dx) + std::abs(dy);
  return "the lamp lies " + way + ", " + std::to_string(steps) + (steps == 1 ? " step" : " steps") +
         " away";
}

int main() {
  meadow::Task task;
  task.name = "lamp";
  task.perceive = perceive;
  task.rule = "Walk toward the lamp.";
  // letter, option text (what the model reads), env action, short label for traces
  task.options = {{'A', "walk north", {0, 1}, "north"},
                  {'B', "walk south", {0, -1}, "south"},
                  {'C', "walk east", {1, 0}, "east"},
                  {'D', "walk west", {-1, 0}, "west"}};
  // The exam: sentences the perceiver writes, with the letter the rule demands.
  task.sanity = {{"the lamp lies north, 3 steps away", 'A'},
                 {"the lamp lies south, 5 steps away", 'B'},
                 {"the lamp lies east, 4 steps away", 'C'},
                 {"the lamp lies west, 2 steps away", 'D'}};

  meadow::Mind mind;  // the embedded meadow-nano, unless $MEADOW_MIND_MODEL or the cache says
  try {
    const meadow::ExamResult exam = mind.check(task);  // proves the wording before it plays
    std::printf("exam: %d/%d right\n", exam.n_right, exam.n_total);
  } catch (const meadow::ExamFailed& e) {  // more misses than allowed: each one listed
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }

  meadow::Values obs = {0, 0, 3, -2};  // the lamp is 3 steps east and 2 south
  for (int step = 1; step <= 10; ++step) {
    auto [action, info] = mind.decide(task, obs);
    obs[0] += action[0], obs[1] += action[1];
    std::printf("%2d  %-34s -> %c %-5s (p=%.2f, %.1f ms)\n", step, info.status.c_str(), info.letter,
                task.act_text(info.letter).c_str(), info.prob(info.letter), info.lat_ms);
    if (obs[0] == obs[2] && obs[1] == obs[3]) {
      std::printf("reached the lamp in %d steps\n", step);
      return 0;
    }
  }
  std::printf("did not reach the lamp\n");
  return 1;
}
