// Task validation: each malformed task is refused with a message naming the problem.
#include <gtest/gtest.h>

#include <functional>

#include "meadow/error.hpp"
#include "meadow/task.hpp"

namespace meadow {
namespace {

Task good() {
  Task t;
  t.name = "demo";
  t.rule = "If hot, choose A; if cold, choose B.";
  t.options = {{'A', "open the window", {0}, "open"}, {'B', "close the window", {1}, ""}};
  t.sanity = {{"It is hot.", 'A'}, {"It is cold.", 'B'}};
  return t;
}

std::string error_of(const std::function<void(Task&)>& edit) {
  Task t = good();
  edit(t);
  try {
    validate(t);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Task, ValidTaskPasses) {
  EXPECT_NO_THROW(validate(good()));
}

TEST(Task, ValidationErrors) {
  EXPECT_EQ(error_of([](Task& t) { t.rule = "  "; }), "task demo: empty rule");
  EXPECT_EQ(error_of([](Task& t) { t.options.clear(); }), "task demo: no options");
  EXPECT_EQ(error_of([](Task& t) { t.options[1].letter = 'A'; }),
            "task demo: duplicate option letter 'A'");
  EXPECT_EQ(error_of([](Task& t) { t.options[1].letter = 'b'; }),
            "task demo: option letter 'b' is not one of A..Z");
  EXPECT_EQ(error_of([](Task& t) { t.options[0].text = ""; }), "task demo: option A has no text");
  EXPECT_EQ(error_of([](Task& t) { t.options[0].action.clear(); }),
            "task demo: option A has no action");
  EXPECT_EQ(error_of([](Task& t) { t.sanity[1].expected = 'C'; }),
            "task demo: exam item 2 expects 'C', which is not an option");
  EXPECT_EQ(error_of([](Task& t) { t.sanity[0].status = ""; }), "task demo: exam item 1 is empty");
  EXPECT_EQ(error_of([](Task& t) { t.memory = true; }),
            "task demo: memory is on but there is no mem_key");
  EXPECT_EQ(error_of([](Task& t) { t.max_steps = 0; }), "task demo: max_steps must be >= 1");
  EXPECT_EQ(error_of([](Task& t) {
              t.name = "";
              t.options.clear();
            }),
            "task (unnamed): no options");
}

TEST(Task, OptionAccessors) {
  const Task t = good();
  EXPECT_EQ(t.option('B').action, Values{1});
  EXPECT_EQ(t.option_text('A'), "open the window");
  EXPECT_EQ(t.act_text('A'), "open");
  EXPECT_EQ(t.act_text('B'), "close the window");  // empty act falls back to the text
  EXPECT_THROW(t.option('C'), Error);
}

TEST(Task, MemoryCountsOnlyWhenOn) {
  Task t = good();
  t.visited["x"] = 2;
  EXPECT_FALSE(t.seen("x"));  // memory off: nothing is remembered
  t.memory = true;
  EXPECT_TRUE(t.seen("x"));
  EXPECT_EQ(t.visits("x"), 2);
  EXPECT_FALSE(t.seen("y"));
  t.forget();
  EXPECT_FALSE(t.seen("x"));
}

TEST(Task, PerceiverTakesEitherSignature) {
  Task t = good();
  t.perceive = [](const Values& o) { return "v=" + std::to_string(int(o.at(0))); };
  EXPECT_EQ(t.perceive({3}, t), "v=3");
  t.memory = true;
  t.mem_key = [](const Values& o) { return std::to_string(int(o.at(0))); };
  t.perceive = [](const Values& o, const Task& task) {
    return std::string(task.seen(task.mem_key(o)) ? "seen" : "new");
  };
  EXPECT_EQ(t.perceive({3}, t), "new");
  t.visited["3"] = 1;
  EXPECT_EQ(t.perceive({3}, t), "seen");
}

}  // namespace
}  // namespace meadow
