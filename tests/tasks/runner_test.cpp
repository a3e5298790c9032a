// Runner mechanics on a random-weight model: every recorded step is one model decision, the
// trace has one line per decision, the GIF one frame per decision, and the verdict is the
// task's judge. The random model plays badly; only the bookkeeping is asserted.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "meadow/error.hpp"
#include "meadow/tasks.hpp"
#include "reference_reader.hpp"
#include "task_fixtures.hpp"

using namespace meadow;

namespace {

std::string tmp(const std::string& name) {
  const auto dir = std::filesystem::path(MEADOW_BINARY_DIR) / "task_runner_test";
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

}  // namespace

TEST(Runner, TraceAndGifHoldOneEntryPerModelDecision) {
  Mind mind(meadow::testing::random_model());
  for (const std::string name : {"cartpole", "frozenlake"}) {
    BuiltinTask bt = builtin_task(name);
    RunOptions o;
    o.seed = 3;
    o.gif_path = tmp(name + ".gif");
    o.trace_path = tmp(name + ".jsonl");
    const RunResult r = run_episode(bt.task, mind_decider(mind), o);
    const auto& steps = r.episode.steps;
    ASSERT_GE(steps.size(), 1u);
    EXPECT_EQ(r.gif_frames, int(steps.size()));
    EXPECT_EQ(meadow::testing::gif_frame_count(o.gif_path), int(steps.size()));
    std::ifstream in(o.trace_path);
    std::string line;
    size_t n = 0;
    while (std::getline(in, line)) {
      const auto j = nlohmann::json::parse(line);
      ASSERT_LT(n, steps.size());
      EXPECT_EQ(j.at("step").get<int64_t>(), int64_t(n));
      EXPECT_EQ(j.at("status").get<std::string>(), steps[n].decision.status);
      const std::string letter = j.at("letter");
      ASSERT_EQ(letter.size(), 1u);
      // The action is the chosen option's, the letter the most probable one (the model's).
      EXPECT_EQ(j.at("action").get<Values>(), bt.task.option(letter[0]).action);
      double sum = 0, best = -1;
      std::string arg;
      for (const auto& [l, p] : j.at("probs").items()) {
        sum += p.get<double>();
        if (p.get<double>() > best) best = p, arg = l;
      }
      EXPECT_NEAR(sum, 1.0, 1e-6);
      EXPECT_EQ(arg, letter);
      EXPECT_GT(j.at("lat_ms").get<double>(), 0.0);
      EXPECT_TRUE(j.contains("reward"));
      // the status is the perceiver's sentence for the observation the decision saw
      const Values& seen = n == 0 ? r.episode.reset_obs : steps[n - 1].obs;
      EXPECT_EQ(steps[n].decision.status, bt.task.perceive(seen, bt.task));
      ++n;
    }
    EXPECT_EQ(n, steps.size());
    EXPECT_EQ(r.verdict.text, bt.task.judge(r.episode).text);
    EXPECT_LE(r.p50_ms, r.p95_ms);
    EXPECT_GT(r.p50_ms, 0.0);
  }
}

TEST(Runner, StopsAtMaxStepsAndMarksTruncation) {
  BuiltinTask bt = builtin_task("cartpole");
  bt.task.max_steps = 7;
  const RunResult r = run_episode(bt.task, meadow::testing::reader_decider(), {});
  EXPECT_EQ(r.episode.steps.size(), 7u);
  EXPECT_TRUE(r.episode.truncated);
  EXPECT_FALSE(r.verdict.ok);
  EXPECT_NE(r.verdict.text.find("7/500"), std::string::npos) << r.verdict.text;
}

TEST(Runner, LoopHintOnlyWithMemoryOff) {
  BuiltinTask bt = builtin_task("maze");
  bt.task.memory = false;
  const RunResult off = run_episode(bt.task, meadow::testing::reader_decider(), {});
  ASSERT_TRUE(off.loop_hint.has_value());
  EXPECT_NE(off.loop_hint->find("--memory on"), std::string::npos);
  bt.task.memory = true;
  const RunResult on = run_episode(bt.task, meadow::testing::reader_decider(), {});
  EXPECT_FALSE(on.loop_hint.has_value());
  EXPECT_TRUE(on.verdict.ok) << on.verdict.text;
}

TEST(Runner, BadInputThrowsMeadowError) {
  BuiltinTask bt = builtin_task("cartpole");
  RunOptions o;
  o.trace_path = "/nonexistent-dir/x.jsonl";
  EXPECT_THROW(run_episode(bt.task, meadow::testing::reader_decider(), o), Error);
  bt.task.perceive = {};
  EXPECT_THROW(run_episode(bt.task, meadow::testing::reader_decider(), {}), Error);
  EXPECT_THROW(builtin_task("pong"), Error);
}

// A failed episode leaves the files it would have written as they were: `play --gif F
// --trace DIR` once deleted F (the GIF writer removed its path when it held no frame).
TEST(Runner, AFailedEpisodeLeavesExistingFilesAsTheyWere) {
  BuiltinTask bt = builtin_task("cartpole");
  const std::string gif = tmp("keep.gif"), trace = tmp("keep.jsonl");
  std::ofstream(gif) << "old gif";
  std::ofstream(trace) << "old trace";
  RunOptions o;
  o.gif_path = gif;
  o.trace_path = tmp("");  // a folder: the trace cannot be opened
  EXPECT_THROW(run_episode(bt.task, meadow::testing::reader_decider(), o), Error);
  o.trace_path = trace;
  int calls = 0;
  const DecideFn failing = [&](Task& task, const Values& obs) {
    if (++calls == 3) throw Error("the model failed");
    return meadow::testing::reader_decider()(task, obs);
  };
  EXPECT_THROW(run_episode(bt.task, failing, o), Error);  // two frames and lines written
  std::ifstream g(gif), t(trace);
  std::string gif_text, trace_text;
  std::getline(g, gif_text);
  std::getline(t, trace_text);
  EXPECT_EQ(gif_text, "old gif");
  EXPECT_EQ(trace_text, "old trace");
}

TEST(Runner, Percentile) {
  EXPECT_EQ(percentile({}, 0.5), 0.0);
  EXPECT_EQ(percentile({3, 1, 2}, 0.5), 2.0);
  EXPECT_EQ(percentile({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0.95), 10.0);
  EXPECT_EQ(percentile({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0.5), 5.0);
}

TEST(BuiltinTasks, ListingHoldsEveryDefinition) {
  const auto names = builtin_task_names();
  EXPECT_EQ(names, (std::vector<std::string>{"cartpole", "mountaincar", "frozenlake", "lunarlander",
                                             "maze", "parkour", "shapes"}));
  for (const auto& name : names) {
    const BuiltinTask bt = builtin_task(name);
    const auto j = task_json(bt);
    EXPECT_EQ(j.at("rule"), bt.task.rule);
    EXPECT_EQ(j.at("options").size(), bt.task.options.size());
    EXPECT_EQ(j.at("exam").size(), bt.task.sanity.size());
    EXPECT_FALSE(bt.seeds.empty());
    EXPECT_NO_THROW(validate(bt.task));
  }
}
