// Parkour-v0 (meadow's own real-time game, src/envs/parkour.cpp): timing of impacts, dodges,
// crashes, the seeded wall sequence, and simulated time == real-time stepping.
#include <gtest/gtest.h>

#include "envs/checked_env.hpp"
#include "envs/parkour.hpp"
#include "meadow/env.hpp"
#include "meadow/error.hpp"
#include "timed_env_check.hpp"

using meadow::envs::Parkour;
using meadow::envs::ParkourConfig;

namespace {
// The lane move (0 stay, 1 left, 2 right) that takes `from` one lane toward `to`.
double toward(int from, int to) {
  return from == to ? 0 : (to < from ? 1 : 2);
}
}  // namespace

TEST(Parkour, FirstWallHitsAfterDistanceOverSpeed) {
  Parkour env(ParkourConfig{});  // 20 m at 8 m/s: impact at 2.5 s
  env.reset(0);
  ASSERT_NE(env.free_lanes()[0], 1);  // the first wall always blocks the middle start lane
  auto s = env.advance(2.49);
  EXPECT_EQ(s.reward, 0);
  EXPECT_EQ(env.challenge(), 0);
  EXPECT_NEAR(env.wall_distance(), 20 - 8 * 2.49, 1e-9);
  s = env.advance(0.02);  // standing in a blocked lane: a crash, no reward
  EXPECT_EQ(s.reward, 0);
  EXPECT_EQ(env.crashes(), 1);
  EXPECT_EQ(env.challenge(), 1);
  EXPECT_NEAR(env.clock(), 2.51, 1e-12);
  // The next wall appeared at the impact instant, 12 m/s, so it is 0.01 s * 12 m/s closer.
  EXPECT_NEAR(env.wall_distance(), 20 - 12 * 0.01, 1e-9);
}

TEST(Parkour, DodgingEveryWallClearsAllSix) {
  Parkour env(ParkourConfig{});
  env.reset(3);
  double total = 0;
  meadow::StepResult s;
  for (int k = 0; k < 6; ++k) {
    const int want = env.free_lanes()[size_t(k)];
    while (env.lane() != want) env.act({toward(env.lane(), want)});
    // Exactly to this wall's impact: the next wall appears at that instant.
    s = env.advance(env.wall_distance() / env.wall_speed(k));
    total += s.reward;
    if (s.terminated) break;
  }
  EXPECT_EQ(total, 6);
  EXPECT_TRUE(s.terminated);
  EXPECT_EQ(env.cleared(), 6);
  EXPECT_EQ(env.challenge(), -1);
}

TEST(Parkour, SeedsGiveTheSameWallsAndFreeLanesAlwaysChange) {
  Parkour a(ParkourConfig{}), b(ParkourConfig{});
  a.reset(7);
  b.reset(7);
  EXPECT_EQ(a.free_lanes(), b.free_lanes());
  bool differs = false;
  for (uint64_t seed = 0; seed < 20; ++seed) {
    b.reset(seed);
    differs = differs || b.free_lanes() != a.free_lanes();
    int prev = 1;
    for (int f : b.free_lanes()) {
      EXPECT_NE(f, prev) << "seed " << seed;
      EXPECT_GE(f, 0);
      EXPECT_LE(f, 2);
      prev = f;
    }
  }
  EXPECT_TRUE(differs);
}

TEST(Parkour, WallsSpeedUpAndStandingStillNeverClearsTwoInARow) {
  Parkour env(ParkourConfig{});
  env.reset(1);
  EXPECT_DOUBLE_EQ(env.wall_speed(0), 8.0);
  EXPECT_DOUBLE_EQ(env.wall_speed(2), 8.0 * 1.5 * 1.5);
  double total = 0;
  meadow::StepResult s;
  int steps = 0;
  while (!s.terminated && steps++ < 10000) {
    s = env.step({0});
    total += s.reward;
  }
  EXPECT_TRUE(s.terminated);
  EXPECT_LE(total, 3);  // the free lane moves every wall
  EXPECT_EQ(env.cleared() + env.crashes(), 6);
}

TEST(Parkour, StepIsActThenAdvanceByDt) {
  // Simulated time (step) and real-time stepping (act + advance by measured seconds) give the
  // same world for the same instants.
  Parkour a(ParkourConfig{}), b(ParkourConfig{});
  a.reset(5);
  b.reset(5);
  meadow::test::expect_step_is_act_then_advance(a, b, 30, 3);
  EXPECT_NEAR(a.clock(), 1.5, 1e-9);
}

TEST(Parkour, ObservationNamesTheFreeLane) {
  Parkour env(ParkourConfig{});
  const auto r = env.reset(2);
  ASSERT_EQ(r.obs.size(), 7u);
  EXPECT_EQ(r.obs[0], 1);  // middle lane
  EXPECT_EQ(r.obs[1], 20);
  EXPECT_EQ(r.obs[2], 8);
  const int f = env.free_lanes()[0];
  for (int l = 0; l < 3; ++l) EXPECT_EQ(r.obs[size_t(3 + l)], l == f ? 0 : 1);
  EXPECT_EQ(r.obs[6], 6);
  EXPECT_TRUE(env.observation_space().contains(r.obs));
}

TEST(Parkour, RegisteredWithKwargsAndBadValuesRefused) {
  auto env = meadow::make("Parkour-v0", {{"obstacles", 3}, {"speed", 5.0}});
  const auto r = env->reset(0);
  EXPECT_EQ(r.obs[6], 3);
  EXPECT_THROW(env->step({3}), meadow::Error);
  EXPECT_THROW(meadow::make("Parkour-v0", {{"obstacles", 0}}), meadow::Error);
  EXPECT_THROW(meadow::make("Parkour-v0", {{"speedup", 0.5}}), meadow::Error);
  EXPECT_THROW(meadow::make("Parkour-v0", {{"dt", -1}}), meadow::Error);
  EXPECT_THROW(meadow::make("Parkour-v0")->step({0}), meadow::Error);  // before reset
  Parkour p(ParkourConfig{});
  p.reset(0);
  EXPECT_THROW(p.advance(-1), meadow::Error);
}
