// FrozenLake, CliffWalking and Taxi against Gymnasium 1.4.0's recorded episodes and reset
// tables: every observation, reward, flag and info value must be identical.
#include <gtest/gtest.h>

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
