// FrozenLake, CliffWalking and Taxi against Gymnasium 1.4.0's recorded episodes and reset
// tables: every observation, reward, flag and info value must be identical.
#include <gtest/gtest.h>

#include <set>
#include <utility>

#include "trace_replay.hpp"

namespace {

using meadow::test::check_reset_table;
using meadow::test::load_trace;
using meadow::test::replay_trace;

TEST(ToyTextTraces, FrozenLake4x4Slippery) {
  EXPECT_EQ(replay_trace(load_trace("FrozenLake-v1-4x4-slippery.json")), "");
}

TEST(ToyTextTraces, FrozenLake8x8NonSlippery) {
  EXPECT_EQ(replay_trace(load_trace("FrozenLake-v1-8x8-nonslippery.json")), "");
}

TEST(ToyTextTraces, FrozenLake8x8Slippery) {
  EXPECT_EQ(replay_trace(load_trace("FrozenLake-v1-8x8-slippery.json")), "");
}

TEST(ToyTextTraces, CliffWalking) {
  EXPECT_EQ(replay_trace(load_trace("CliffWalking-v1.json")), "");
}

// The file keeps 3 of the 10 recorded episodes (its README, "Trimmed"). Deterministic, the env is
// checked by its transitions, and they still take every action from every cell an episode can
// stand on (0-36; 37-46 are the cliff, 47 the goal), each episode ending at the goal.
TEST(ToyTextTraces, CliffWalkingTraceTakesEveryActionFromEveryCell) {
  const auto trace = load_trace("CliffWalking-v1.json");
  std::set<std::pair<int, int>> seen;
  for (const auto& ep : trace["episodes"]) {
    int s = ep["reset_obs"].get<int>();
    for (const auto& st : ep["steps"]) {
      seen.insert({s, st["action"].get<int>()});
      s = st["obs"].get<int>();
    }
    EXPECT_EQ(s, 47);
    EXPECT_TRUE(ep["steps"].back()["terminated"].get<bool>());
  }
  EXPECT_EQ(seen.size(), 37u * 4);
  for (const auto& [cell, action] : seen) {
    EXPECT_LE(cell, 36);
    EXPECT_LE(action, 3);
  }
}

TEST(ToyTextTraces, Taxi) {
  EXPECT_EQ(replay_trace(load_trace("Taxi-v4.json")), "");
}

TEST(ToyTextTraces, FrozenLakeResetTable) {
  EXPECT_EQ(check_reset_table(load_trace("reset-seeds-FrozenLake-v1-4x4.json")), "");
}

TEST(ToyTextTraces, TaxiResetTable) {
  EXPECT_EQ(check_reset_table(load_trace("reset-seeds-Taxi-v4.json")), "");
}

}  // namespace
