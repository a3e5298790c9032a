// shapes: a coloured shape appears; press its key before the window closes (Shapes-v0). The
// window shrinks every round; `meadow-mind shapes` searches the smallest first window at which
// the mind still matches all six.
#include <cmath>
#include <string>

#include "envs/shapes.hpp"
#include "tasks/builtin.hpp"

namespace meadow::tasks {
namespace {

// Perception: the shape on the screen as a thing with a colour ("the square is red"), the
// register of the event rules the embedded model reads (a noun and a predicate; only the pair
// decides). Nothing else: the time left or the round would not make the mind act faster, and
// every word costs decision time. So the perceiver writes five sentences, all in the exam.
std::string perceive(const Values& obs) {
  const int shown = int(obs.at(0));
  if (shown < 0 || shown >= int(envs::kShapeKinds.size())) return "nothing is shown";
  return std::string("the ") + envs::kShapeKinds[size_t(shown)] + " is " +
         envs::kShapeColours[size_t(shown)];
}

}  // namespace

BuiltinTask make_shapes_task() {
  BuiltinTask bt;
  Task& t = bt.task;
  t.name = "shapes";
  t.summary = "press the key of the coloured shape before its shrinking window closes (Shapes-v0)";
  t.perceive = perceive;
  t.rule =
      "If the square is red, choose A. If the square is green, choose B. If the circle is red, "
      "choose C. If the circle is green, choose D. If nothing is shown, choose E.";
  // Actions follow envs::kShapeNames; 4 is wait.
  t.options = {{'A', "press the red square key", {0}, "red square"},
               {'B', "press the green square key", {1}, "green square"},
               {'C', "press the red circle key", {2}, "red circle"},
               {'D', "press the green circle key", {3}, "green circle"},
               {'E', "wait", {double(envs::kShapeNone)}, "wait"}};
  // Every sentence the perceiver can write.
  t.sanity = {{"the square is red", 'A'},
              {"the square is green", 'B'},
              {"the circle is red", 'C'},
              {"the circle is green", 'D'},
              {"nothing is shown", 'E'}};
  t.env_id = "Shapes-v0";
  t.max_steps = 2000;  // turn-based play (`play`): 0.01 s a step
  t.judge = [](const Episode& ep) { return six_of_six(ep, "matched", "shapes"); };

  bt.seeds = {0};
  bt.target = "6/6 shapes matched in real time";
  bt.realtime = true;
  bt.judge_all = six_on_every_seed("matched", "shapes");
  return bt;
}

}  // namespace meadow::tasks
