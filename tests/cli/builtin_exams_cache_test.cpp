// The decision pass with the prefix cache and without it (one uncached pass, same attention
// mask) agree on every exam item of every built-in task (issue 5). Runs in-process: test_cli
// is the suite that links the tasks layer. On the train-vocabulary fixture always, and on the
// embedded model when models/meadow-nano.gguf exists.
#include <gtest/gtest.h>

#include <filesystem>

#include "../decision/mind_fixture.hpp"
#include "meadow/mind.hpp"
#include "meadow/tasks.hpp"

namespace meadow {
namespace {

void expect_cache_agrees(const std::string& model) {
  Mind cached(model, MindOptions{.decide = {.prefix_cache = true}});
  Mind plain(model, MindOptions{.decide = {.prefix_cache = false}});
  int items = 0;
  for (const auto& name : builtin_task_names()) {
    const BuiltinTask bt = builtin_task(name);
    ASSERT_FALSE(bt.task.sanity.empty()) << name;
    for (const auto& item : bt.task.sanity) {
      const Decision a = cached.decide_status(bt.task, item.status);
      const Decision b = plain.decide_status(bt.task, item.status);
      EXPECT_EQ(a.letter, b.letter) << name << ": " << item.status;
      for (const auto& [l, p] : a.probs)
        EXPECT_NEAR(p, b.prob(l), 1e-4) << name << ": " << item.status;
      ++items;
    }
  }
  EXPECT_GE(items, 5);
}

TEST(BuiltinExams, CachedAndUncachedAgreeOnTheFixture) {
  expect_cache_agrees(mind_test::train_fixture());
}

TEST(BuiltinExams, CachedAndUncachedAgreeOnTheEmbeddedModel) {
  const std::string model = std::string(MEADOW_SOURCE_DIR) + "/models/meadow-nano.gguf";
  if (!std::filesystem::exists(model)) GTEST_SKIP() << model << " is not there yet (issue 4)";
  expect_cache_agrees(model);
}

}  // namespace
}  // namespace meadow
