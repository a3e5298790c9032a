// SOLVABILITY PROOF of the built-in tasks' design, with the TEST-ONLY reference reader
// (reference_reader.hpp): the episodes are played through the product's runner with the
// decision function bound to a literal string matcher instead of the model. Passing proves
// that the perceivers' words + the rules + the options are enough to reach each target when
// read correctly. It proves NOTHING about the model: the end-to-end tests with the embedded
// model are in e2e_model_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <numeric>
#include <set>

#include "meadow/tasks.hpp"
#include "reference_reader.hpp"

using meadow::builtin_task;
using meadow::BuiltinTask;
using meadow::Episode;
using meadow::RunOptions;
using meadow::testing::reader_decider;
using meadow::testing::ReferenceReader;

namespace {

struct Played {
  std::vector<Episode> episodes;
  std::set<std::string> statuses;
  std::vector<std::optional<std::string>> hints;
};

Played play_all(BuiltinTask& bt) {
  Played p;
  auto decide = reader_decider();
  for (uint64_t seed : bt.seeds) {
    RunOptions o;
    o.seed = seed;
    auto r = meadow::run_episode(bt.task, decide, o);
    for (const auto& s : r.episode.steps) p.statuses.insert(s.decision.status);
    p.hints.push_back(r.loop_hint);
    p.episodes.push_back(std::move(r.episode));
  }
  return p;
}

// The sentences of train/common/heldout/<task>.txt (comments and blank lines skipped).
std::set<std::string> heldout(const std::string& task) {
  std::ifstream in(std::string(MEADOW_SOURCE_DIR) + "/train/common/heldout/" + task + ".txt");
  std::set<std::string> out;
  std::string line;
  while (std::getline(in, line))
    if (!line.empty() && line[0] != '#') out.insert(line);
  return out;
}

// Every sentence the task showed (rule, options, exam, statuses of the played episodes) is
// held out from the embedded model's training corpus.
void expect_held_out(const BuiltinTask& bt, const std::set<std::string>& statuses) {
  const auto held = heldout(bt.task.name);
  std::vector<std::string> all(statuses.begin(), statuses.end());
  all.push_back(bt.task.rule);
  for (const auto& o : bt.task.options) all.push_back(o.text);
  for (const auto& e : bt.task.sanity) all.push_back(e.status);
  for (const auto& s : all)
    EXPECT_TRUE(held.count(s)) << "not in train/common/heldout/" << bt.task.name << ".txt: " << s;
}

}  // namespace

TEST(ReferenceReader, AnswersEveryExamItem) {
  for (const auto& name : meadow::builtin_task_names()) {
    const BuiltinTask bt = builtin_task(name);
    const ReferenceReader reader(bt.task);
    std::set<char> covered;
    // shapes' perceiver writes five sentences in all; its exam holds every one of them.
    ASSERT_GE(bt.task.sanity.size(), name == "shapes" ? 5u : 8u) << name;
    for (const auto& item : bt.task.sanity) {
      EXPECT_EQ(reader.read(item.status), item.expected) << name << ": " << item.status;
      covered.insert(item.expected);
    }
    EXPECT_EQ(covered.size(), bt.task.options.size()) << name << ": the exam misses an option";
  }
}

TEST(ReferenceReader, RejectsAStatusNoConditionMatches) {
  const ReferenceReader reader(builtin_task("cartpole").task);
  EXPECT_THROW(reader.read("the pole is gone"), std::runtime_error);
}

TEST(Solvability, CartPoleBalances500StepsOnEachSeed) {
  BuiltinTask bt = builtin_task("cartpole");
  const Played p = play_all(bt);
  ASSERT_EQ(p.episodes.size(), 10u);
  for (const auto& e : p.episodes) EXPECT_EQ(e.steps.size(), 500u) << "seed " << e.seed;
  EXPECT_TRUE(bt.judge_all(p.episodes).ok) << bt.judge_all(p.episodes).text;
  expect_held_out(bt, p.statuses);
}

TEST(Solvability, MountainCarReachesTheFlagFast) {
  BuiltinTask bt = builtin_task("mountaincar");
  const Played p = play_all(bt);
  ASSERT_EQ(p.episodes.size(), 10u);
  size_t sum = 0, best = SIZE_MAX;
  for (const auto& e : p.episodes) {
    EXPECT_TRUE(e.terminated) << "seed " << e.seed;
    sum += e.steps.size();
    best = std::min(best, e.steps.size());
  }
  EXPECT_LE(double(sum) / 10.0, 110.0);
  EXPECT_LE(best, 103u);
  EXPECT_TRUE(bt.judge_all(p.episodes).ok) << bt.judge_all(p.episodes).text;
  std::printf("mountaincar (reference reader): %s\n", bt.judge_all(p.episodes).text.c_str());
  expect_held_out(bt, p.statuses);
}

TEST(Solvability, FrozenLakeGoalInFourteenSteps) {
  BuiltinTask bt = builtin_task("frozenlake");
  const Played p = play_all(bt);
  ASSERT_EQ(p.episodes.size(), 1u);
  EXPECT_TRUE(p.episodes[0].terminated);
  EXPECT_EQ(p.episodes[0].total_reward, 1.0);
  EXPECT_EQ(p.episodes[0].steps.size(), 14u);
  expect_held_out(bt, p.statuses);
}

TEST(Solvability, LunarLanderMeanAtLeast200) {
  BuiltinTask bt = builtin_task("lunarlander");
  const Played p = play_all(bt);
  ASSERT_EQ(p.episodes.size(), 10u);
  double sum = 0, best = -1e9;
  for (const auto& e : p.episodes) {
    sum += e.total_reward;
    best = std::max(best, e.total_reward);
    std::printf("lunarlander seed %llu: %.1f in %zu steps\n", (unsigned long long)e.seed,
                e.total_reward, e.steps.size());
  }
  EXPECT_GE(sum / 10.0, 200.0);
  EXPECT_GE(best, 251.0);
  expect_held_out(bt, p.statuses);
}

TEST(Solvability, MazeExitWithMemoryLoopWithout) {
  BuiltinTask bt = builtin_task("maze");
  ASSERT_TRUE(bt.task.memory);
  const Played with = play_all(bt);
  ASSERT_EQ(with.episodes.size(), 1u);
  EXPECT_TRUE(with.episodes[0].terminated) << "steps " << with.episodes[0].steps.size();
  EXPECT_FALSE(with.hints[0].has_value());
  std::printf("maze with memory: %zu steps\n", with.episodes[0].steps.size());

  bt.task.memory = false;
  const Played without = play_all(bt);
  EXPECT_FALSE(without.episodes[0].terminated);
  EXPECT_EQ(without.episodes[0].steps.size(), 200u);
  ASSERT_TRUE(without.hints[0].has_value());
  EXPECT_NE(without.hints[0]->find("looping"), std::string::npos);
  std::set<std::string> all = with.statuses;
  all.insert(without.statuses.begin(), without.statuses.end());
  expect_held_out(bt, all);
}

// The real-time games played turn by turn (simulated time, one decision every dt): the words
// alone dodge every wall and match every shape. Their real-time runs: realtime_runner_test.cpp.
TEST(Solvability, ParkourClearsAllSixWalls) {
  BuiltinTask bt = builtin_task("parkour");
  bt.seeds = {0, 1, 2, 3, 4};
  const Played p = play_all(bt);
  for (const auto& e : p.episodes) {
    EXPECT_TRUE(e.terminated) << "seed " << e.seed;
    EXPECT_EQ(e.total_reward, 6.0) << "seed " << e.seed;
  }
  EXPECT_TRUE(bt.judge_all(p.episodes).ok) << bt.judge_all(p.episodes).text;
  expect_held_out(bt, p.statuses);
}

TEST(Solvability, ShapesMatchesAllSix) {
  BuiltinTask bt = builtin_task("shapes");
  bt.seeds = {0, 1, 2, 3, 4};
  const Played p = play_all(bt);
  for (const auto& e : p.episodes) EXPECT_EQ(e.total_reward, 6.0) << "seed " << e.seed;
  expect_held_out(bt, p.statuses);
}
