// End to end with the EMBEDDED model (models/meadow-nano.gguf, issue 4): the exam passes and
// each built-in task reaches its target on its fixed seeds. Skipped, saying so, while the
// model file does not exist.
#include <gtest/gtest.h>

#include "../model_claims.hpp"
#include "meadow/tasks.hpp"
#include "task_fixtures.hpp"

using namespace meadow;

namespace {

std::vector<Episode> play(Mind& mind, BuiltinTask& bt) {
  std::vector<Episode> out;
  for (uint64_t seed : bt.seeds) {
    RunOptions o;
    o.seed = seed;
    out.push_back(run_episode(bt.task, mind_decider(mind), o).episode);
  }
  return out;
}

class EmbeddedModel : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = meadow::testing::embedded_model();
    if (path_.empty())
      GTEST_SKIP() << "models/meadow-nano.gguf does not exist yet (issue 4 trains it); the "
                      "built-in tasks' end-to-end targets are untested";
  }
  // Exam first (as `meadow-mind <task>` does), then the task's episodes.
  Verdict exam_and_play(const std::string& name, std::vector<Episode>* eps = nullptr) {
    if (!meadow::testing::embedded_target_claimed(name)) {
      skipped_ = true;
      return {};
    }
    Mind mind(path_);
    BuiltinTask bt = builtin_task(name);
    const ExamResult exam = mind.exam(bt.task);
    EXPECT_TRUE(exam.ok) << exam_table(bt.task, exam);
    std::vector<Episode> played = play(mind, bt);
    const Verdict v = bt.judge_all(played);
    std::printf("%s with %s: %s\n", name.c_str(), path_.c_str(), v.text.c_str());
    if (eps) *eps = std::move(played);
    return v;
  }
  std::string path_;
  bool skipped_ = false;
};

// An unclaimed target (models/meadow-nano.targets.json) is reported as skipped, not passed.
#define SKIP_IF_UNCLAIMED(name)                                                           \
  if (skipped_)                                                                           \
  GTEST_SKIP() << name << ": target not met by the shipped model (models/MODEL_CARD.md, " \
               << "models/meadow-nano.targets.json)"

}  // namespace

TEST_F(EmbeddedModel, CartPoleBalances500StepsOnTenSeeds) {
  const Verdict v = exam_and_play("cartpole");
  SKIP_IF_UNCLAIMED("cartpole");
  EXPECT_TRUE(v.ok) << v.text;
}

TEST_F(EmbeddedModel, MountainCarFlagOnTenSeedsMean110Best103) {
  const Verdict v = exam_and_play("mountaincar");
  SKIP_IF_UNCLAIMED("mountaincar");
  EXPECT_TRUE(v.ok) << v.text;
}

TEST_F(EmbeddedModel, FrozenLakeGoalInFourteenSteps) {
  const Verdict v = exam_and_play("frozenlake");
  SKIP_IF_UNCLAIMED("frozenlake");
  EXPECT_TRUE(v.ok) << v.text;
}

TEST_F(EmbeddedModel, LunarLanderMean200Best251) {
  const Verdict v = exam_and_play("lunarlander");
  SKIP_IF_UNCLAIMED("lunarlander");
  EXPECT_TRUE(v.ok) << v.text;
}

TEST_F(EmbeddedModel, MazeExitWithMemoryLoopsWithout) {
  const Verdict v = exam_and_play("maze");
  SKIP_IF_UNCLAIMED("maze");
  EXPECT_TRUE(v.ok) << v.text;
  Mind mind(path_);
  BuiltinTask bt = builtin_task("maze");
  bt.task.memory = false;
  const RunResult r = run_episode(bt.task, mind_decider(mind), {});
  EXPECT_FALSE(r.episode.terminated) << "without memory the runner should stay trapped";
  EXPECT_TRUE(r.loop_hint.has_value());
}
