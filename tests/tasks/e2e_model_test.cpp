// End to end with the EMBEDDED model (models/meadow-nano.gguf, issue 4): the exam passes and
// each built-in task reaches its target on its fixed seeds. Skipped, saying so, while the
// model file does not exist.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <string>

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

namespace {

// The task with its letters moved: option i gets letters[i] (options then listed in letter
// order, so the texts change places), and every letter in the rule follows its option.
Task relabelled(const Task& t, const std::string& letters) {
  Task r = t;
  std::map<char, char> to;
  for (size_t i = 0; i < t.options.size(); ++i) to[t.options[i].letter] = letters[i];
  for (auto& o : r.options) o.letter = to.at(o.letter);
  std::sort(r.options.begin(), r.options.end(),
            [](const Option& a, const Option& b) { return a.letter < b.letter; });
  for (size_t i = 0; i < r.rule.size(); ++i) {  // a lone capital that is an option letter
    const bool alone =
        (i == 0 || !std::isalpha(static_cast<unsigned char>(r.rule[i - 1]))) &&
        (i + 1 == r.rule.size() || !std::isalpha(static_cast<unsigned char>(r.rule[i + 1])));
    if (alone && to.count(t.rule[i])) r.rule[i] = to.at(t.rule[i]);
  }
  for (auto& s : r.sanity) s.expected = to.at(s.expected);
  return r;
}

}  // namespace

// Decisions come from reading the words: relabel a claimed task's options (texts change
// places, the rule's letters follow) and compare the chosen ACTIONS on the exam's situations.
// A label-blind answerer (same letter whatever the labels) keeps the action only where the
// relabelling maps a letter to itself; the model must close at least half of the gap from
// that rate to 100 % (always asserted), and reach 90 % where the card claims
// "relabelling".
TEST_F(EmbeddedModel, RelabelledTasksChooseTheSameActions) {
  int total = 0, same = 0, blind = 0, claimed = 0;
  Mind mind(path_);
  for (const auto& name : builtin_task_names()) {
    if (!meadow::testing::embedded_target_claimed(name)) continue;
    ++claimed;
    const BuiltinTask bt = builtin_task(name);
    const size_t n = bt.task.options.size();
    std::string rotated, reversed;
    for (size_t i = 0; i < n; ++i) {
      rotated += char('A' + (i + 1) % n);
      reversed += char('A' + (n - 1 - i));
    }
    for (const std::string& letters : {rotated, reversed}) {
      const Task r = relabelled(bt.task, letters);
      for (const auto& item : bt.task.sanity) {
        const char la = mind.decide_status(bt.task, item.status).letter;
        const Values a = bt.task.option(la).action;
        const Values b = r.option(mind.decide_status(r, item.status).letter).action;
        ++total;
        same += a == b;
        blind += r.option(la).action == a;
      }
    }
  }
  if (claimed == 0) GTEST_SKIP() << "no built-in task is claimed (models/meadow-nano.targets.json)";
  std::printf("relabelled: %d/%d decisions chose the same action (label-blind: %d)\n", same, total,
              blind);
  EXPECT_GE(2 * same, total + blind) << same << "/" << total << ", label-blind " << blind;
  if (meadow::testing::embedded_target_claimed("relabelling")) {
    EXPECT_GE(same * 10, total * 9) << same << "/" << total;
  }
}
