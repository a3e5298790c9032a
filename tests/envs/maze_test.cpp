// FunnelMaze-v0 (meadow's own env, src/envs/maze.cpp): moves, walls, the exit, layouts.
#include <gtest/gtest.h>

#include "meadow/env.hpp"
#include "meadow/error.hpp"

using meadow::make;
using meadow::Values;

TEST(FunnelMaze, StartsAtSAndWallsBlock) {
  auto env = make("FunnelMaze-v0");
  const auto r = env->reset(0);
  EXPECT_EQ(r.obs, (Values{5 * 9 + 1}));  // S at row 5, col 1 of the 9x9 layout
  EXPECT_EQ(env->observation_space().n, 81);
  EXPECT_EQ(env->action_space().n, 4);
  auto s = env->step({0});  // left: a wall, stays
  EXPECT_EQ(s.obs, (Values{46}));
  EXPECT_EQ(s.reward, 0.0);
  s = env->step({2});  // right: open
  EXPECT_EQ(s.obs, (Values{47}));
  s = env->step({3});  // up
  EXPECT_EQ(s.obs, (Values{38}));
  EXPECT_FALSE(s.terminated);
}

TEST(FunnelMaze, ShortestWayOutReachesTheExit) {
  auto env = make("FunnelMaze-v0");
  env->reset();
  // right x3, down x2, right x3, up x6: out of the funnel, along the bottom, up to G.
  const int path[] = {2, 2, 2, 1, 1, 2, 2, 2, 3, 3, 3, 3, 3, 3};
  meadow::StepResult s;
  for (int a : path) {
    ASSERT_FALSE(s.terminated);
    s = env->step({double(a)});
  }
  EXPECT_TRUE(s.terminated);
  EXPECT_EQ(s.reward, 1.0);
  EXPECT_EQ(s.obs, (Values{1 * 9 + 7}));
}

TEST(FunnelMaze, TimeLimitAndLayoutsAreChecked) {
  auto env = make("FunnelMaze-v0", {{"layout", {"#####", "#S.G#", "#####"}}});
  env->reset();
  EXPECT_TRUE(env->step({2}).obs == Values{7});
  EXPECT_TRUE(env->step({2}).terminated);
  auto short_env = make("FunnelMaze-v0", {{"max_episode_steps", 3}});
  short_env->reset();
  short_env->step({0});
  short_env->step({0});
  EXPECT_TRUE(short_env->step({0}).truncated);
  EXPECT_THROW(make("FunnelMaze-v0", {{"layout", {"#####", "#S..#", "#####"}}}), meadow::Error);
  EXPECT_THROW(make("FunnelMaze-v0", {{"layout", {"#####", "#S.G", "#####"}}}), meadow::Error);
  EXPECT_THROW(make("FunnelMaze-v0", {{"layout", {"S.G"}}}), meadow::Error);
  EXPECT_THROW(make("FunnelMaze-v0", {{"layout", {"#####", "#SxG#", "#####"}}}), meadow::Error);
  EXPECT_THROW(env->step({4}), meadow::Error);
}
