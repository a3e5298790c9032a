// The real-time runner's deadline logic, in SIMULATED time: a mind whose answers take longer
// than the game gives misses, a fast one hits, whatever the machine's speed. Decisions come
// from the test-only reference reader (reference_reader.hpp); the words are the tasks' own.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "meadow/env.hpp"
#include "meadow/error.hpp"
#include "meadow/realtime.hpp"
#include "reference_reader.hpp"

using namespace meadow;
using meadow::testing::reader_decider;

namespace {

RealtimeResult simulate(const std::string& name, double latency_s, nlohmann::json kwargs = {},
                        uint64_t seed = 0) {
  BuiltinTask bt = builtin_task(name);
  RealtimeOptions o;
  o.seed = seed;
  o.latency = [latency_s](const Decision&) { return latency_s; };
  o.env_kwargs = std::move(kwargs);
  return run_realtime(bt.task, reader_decider(), o);
}

}  // namespace

TEST(RealtimeSimulated, FastMindClearsEveryWall) {
  for (uint64_t seed : {0, 1, 2}) {
    const RealtimeResult r = simulate("parkour", 0.005, {}, seed);
    EXPECT_TRUE(r.simulated);
    EXPECT_EQ(r.episode.total_reward, 6.0) << "seed " << seed;
    EXPECT_TRUE(r.verdict.ok) << r.verdict.text;
    EXPECT_EQ(r.verdict.text, "cleared 6/6 obstacles (seed " + std::to_string(seed) + ")");
    // Each answer lands 5 ms after its read (the last one: when the last wall has passed).
    for (size_t i = 0; i + 1 < r.decisions.size(); ++i)
      EXPECT_NEAR(r.decisions[i].answer_s - r.decisions[i].read_s, 0.005, 1e-9);
    // Back-to-back decisions: the one thinking while a wall passes answers a closed question.
    EXPECT_LE(r.late, 7);
  }
}

TEST(RealtimeSimulated, SlowMindCrashesIntoTheFirstWall) {
  // The first wall hits 2.5 s after the start; answers that take 3 s always come too late.
  const RealtimeResult r = simulate("parkour", 3.0);
  // Never in time, so the runner never moves: it scores what standing still scores (the free
  // lane changes every wall, so that is at most every other wall).
  auto env = make("Parkour-v0");
  env->reset(0);
  double still = 0;
  for (StepResult s; !s.terminated;) still += (s = env->step({0})).reward;
  EXPECT_EQ(r.episode.total_reward, still);
  EXPECT_LE(still, 3.0);
  EXPECT_FALSE(r.verdict.ok);
  ASSERT_FALSE(r.decisions.empty());
  EXPECT_FALSE(r.decisions[0].in_time);
  EXPECT_EQ(r.late, int64_t(r.decisions.size()));
  EXPECT_DOUBLE_EQ(r.decisions[0].read_s, 0.0);
  EXPECT_DOUBLE_EQ(r.decisions[0].answer_s, 3.0);
}

TEST(RealtimeSimulated, TheDeadlineSplitsFastFromSlowShapes) {
  // Windows of 100 ms (shrink 1): an answer within the window matches, one after it misses.
  const nlohmann::json kw = {{"window", 0.1}, {"shrink", 1.0}};
  const RealtimeResult fast = simulate("shapes", 0.03, kw);
  EXPECT_EQ(fast.episode.total_reward, 6.0) << fast.verdict.text;
  const RealtimeResult slow = simulate("shapes", 0.2, kw);
  EXPECT_EQ(slow.episode.total_reward, 0.0) << slow.verdict.text;
  EXPECT_GT(slow.late, 0);
  EXPECT_EQ(slow.verdict.text, "matched 0/6 shapes (seed 0)");
}

TEST(RealtimeSimulated, WritesTheGifAndOneTraceLinePerDecision) {
  const auto dir = std::filesystem::temp_directory_path() / "meadow_realtime_test";
  std::filesystem::create_directories(dir);
  BuiltinTask bt = builtin_task("shapes");
  RealtimeOptions o;
  o.latency = [](const Decision&) { return 0.02; };
  o.gif_path = (dir / "shapes.gif").string();
  o.trace_path = (dir / "shapes.jsonl").string();
  const RealtimeResult r = run_realtime(bt.task, reader_decider(), o);
  EXPECT_GT(r.gif_frames, 10);
  EXPECT_TRUE(std::filesystem::file_size(o.gif_path) > 0);
  std::ifstream in(o.trace_path);
  std::string line;
  size_t lines = 0;
  while (std::getline(in, line)) {
    const auto j = nlohmann::json::parse(line);
    EXPECT_TRUE(j.contains("read_s") && j.contains("answer_s") && j.contains("in_time"));
    ++lines;
  }
  EXPECT_EQ(lines, r.decisions.size());
  std::filesystem::remove_all(dir);
}

TEST(RealtimeSimulated, RefusesBadLatencyAndTurnBasedGames) {
  BuiltinTask bt = builtin_task("parkour");
  RealtimeOptions o;
  o.latency = [](const Decision&) { return 0.0; };
  EXPECT_THROW(run_realtime(bt.task, reader_decider(), o), Error);
  BuiltinTask cp = builtin_task("cartpole");
  o.latency = [](const Decision&) { return 0.01; };
  EXPECT_THROW(run_realtime(cp.task, reader_decider(), o), Error);
}

// The threaded path: it ends, and every answer was read before it arrived. No assertion on
// the score: that depends on the machine's load (the commands measure it).
TEST(RealtimeThreads, RunsToTheEndWithOrderedTimes) {
  BuiltinTask bt = builtin_task("parkour");
  RealtimeOptions o;
  o.env_kwargs = {{"speed", 200.0}};  // six walls in well under a second
  const RealtimeResult r = run_realtime(bt.task, reader_decider(), o);
  EXPECT_FALSE(r.simulated);
  EXPECT_TRUE(r.episode.terminated);
  ASSERT_FALSE(r.decisions.empty());
  for (const auto& d : r.decisions) EXPECT_LE(d.read_s, d.answer_s);
}

TEST(GeneratingDecider, ParsesAWrittenAnswerToAnOption) {
  const Task parkour = builtin_task("parkour").task;
  EXPECT_EQ(parse_answer(parkour, "I choose B because the free lane is to the left."), 'B');
  EXPECT_EQ(parse_answer(parkour, "C) move one lane right"), 'C');
  EXPECT_EQ(parse_answer(parkour, "A wall is near, so I move one lane right."), 'C');
  EXPECT_EQ(parse_answer(parkour, "Go LEFT now, then right."), 'B');
  EXPECT_EQ(parse_answer(parkour, "I am not sure what to do."), 'A');  // idle: stay
  const Task shapes = builtin_task("shapes").task;
  EXPECT_EQ(parse_answer(shapes, "Press the green circle key."), 'D');
  EXPECT_EQ(parse_answer(shapes, "Hmm."), 'E');  // idle: wait
}
