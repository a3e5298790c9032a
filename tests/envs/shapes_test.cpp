// Shapes-v0 (meadow's own real-time game, src/envs/shapes.cpp): gaps, windows that shrink and
// close, matches and misses, the seeded shape sequence, simulated time == real-time stepping.
#include <gtest/gtest.h>

#include "envs/checked_env.hpp"
#include "envs/shapes.hpp"
#include "meadow/env.hpp"
#include "meadow/error.hpp"
#include "timed_env_check.hpp"

using meadow::Values;
using meadow::envs::kShapeNone;
using meadow::envs::Shapes;
using meadow::envs::ShapesConfig;

TEST(Shapes, ShapeShowsAfterTheGapAndTheRightKeyMatches) {
  Shapes env(ShapesConfig{});  // gap 0.25 s, window 1 s
  env.reset(0);
  EXPECT_EQ(env.challenge(), 0);
  EXPECT_EQ(env.observe()[0], kShapeNone);
  env.act({0});  // a key in the gap does nothing
  EXPECT_EQ(env.round(), 0);
  env.advance(0.25);
  ASSERT_TRUE(env.showing());
  EXPECT_EQ(env.challenge(), 1);
  const int shape = env.sequence()[0];
  EXPECT_EQ(env.observe()[0], shape);
  EXPECT_NEAR(env.observe()[1], 1.0, 1e-6);
  const auto s = env.act({double(shape)});
  EXPECT_EQ(s.reward, 1);
  EXPECT_EQ(env.matched(), 1);
  EXPECT_EQ(env.challenge(), 2);  // round 1's gap
  EXPECT_FALSE(env.showing());
}

TEST(Shapes, WrongKeyOrAClosedWindowMisses) {
  Shapes env(ShapesConfig{});
  env.reset(0);
  env.advance(0.3);
  const int shape = env.sequence()[0];
  auto s = env.act({double((shape + 1) % 4)});
  EXPECT_EQ(s.reward, 0);
  EXPECT_EQ(env.round(), 1);
  // Round 1: gap 0.25 s, window 0.8 s; waiting past it misses.
  s = env.advance(0.25 + 0.8 + 0.001);
  EXPECT_EQ(env.round(), 2);
  EXPECT_EQ(env.matched(), 0);
  EXPECT_EQ(s.reward, 0);
}

TEST(Shapes, WindowsShrinkEveryRound) {
  Shapes env(ShapesConfig{.window = 0.5, .shrink = 0.5});
  EXPECT_DOUBLE_EQ(env.window(0), 0.5);
  EXPECT_DOUBLE_EQ(env.window(3), 0.0625);
  env.reset(1);
  // One long advance closes several windows in order: each round takes gap + window.
  env.advance(0.25 + 0.5 + 0.25 + 0.25 + 0.01);
  EXPECT_EQ(env.round(), 2);
  EXPECT_EQ(env.challenge(), 4);
}

TEST(Shapes, MatchingEveryShapeScoresAllRoundsInSimulatedTime) {
  auto env = meadow::make("Shapes-v0", {{"window", 0.05}});
  env->reset(4);
  auto& shapes = dynamic_cast<Shapes&>(static_cast<meadow::envs::CheckedEnv&>(*env).inner());
  double total = 0;
  meadow::StepResult s;
  int steps = 0;
  while (!s.terminated && steps++ < 10000) {
    const Values obs = shapes.observe();
    s = env->step({obs[0]});  // the shown shape's key, or wait
    total += s.reward;
  }
  EXPECT_TRUE(s.terminated);
  EXPECT_EQ(total, 6);
}

TEST(Shapes, SeededSequenceNeverRepeatsAShapeInARow) {
  Shapes a(ShapesConfig{}), b(ShapesConfig{});
  a.reset(9);
  b.reset(9);
  EXPECT_EQ(a.sequence(), b.sequence());
  for (uint64_t seed = 0; seed < 20; ++seed) {
    b.reset(seed);
    for (size_t i = 1; i < b.sequence().size(); ++i)
      EXPECT_NE(b.sequence()[i], b.sequence()[i - 1]) << "seed " << seed;
  }
}

TEST(Shapes, StepIsActThenAdvanceByDt) {
  Shapes a(ShapesConfig{}), b(ShapesConfig{});
  a.reset(2);
  b.reset(2);
  meadow::test::expect_step_is_act_then_advance(a, b, 200, 5);
}

TEST(Shapes, BadKwargsAreRefused) {
  EXPECT_THROW(meadow::make("Shapes-v0", {{"window", 0}}), meadow::Error);
  EXPECT_THROW(meadow::make("Shapes-v0", {{"shrink", 1.5}}), meadow::Error);
  EXPECT_THROW(meadow::make("Shapes-v0", {{"rounds", 0}}), meadow::Error);
  EXPECT_THROW(meadow::make("Shapes-v0", {{"colour", 1}}), meadow::Error);
  auto env = meadow::make("Shapes-v0");
  env->reset(0);
  EXPECT_THROW(env->step({5}), meadow::Error);
}
