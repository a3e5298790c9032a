#include <gtest/gtest.h>

#include "envs/cartpole.hpp"
#include "trace_replay.hpp"

using meadow::test::load_trace;

TEST(CartPole, ReplaysGymnasiumTraces) {
  EXPECT_EQ(meadow::test::replay_trace(load_trace("CartPole-v1.json")), "");
}

TEST(CartPole, ResetStateMatchesEverySeedAtFullPrecision) {
  const auto table = load_trace("reset-seeds-CartPole-v1.json");
  meadow::envs::CartPoleEnv env;
  for (const auto& e : table["entries"]) {
    env.reset(e["seed"].get<uint64_t>());
    const auto& s = env.state();
    const auto& want = e["state"];
    ASSERT_EQ(s.x, want[0].get<double>()) << e["seed"];
    ASSERT_EQ(s.x_dot, want[1].get<double>());
    ASSERT_EQ(s.theta, want[2].get<double>());
    ASSERT_EQ(s.theta_dot, want[3].get<double>());
  }
  EXPECT_EQ(meadow::test::check_reset_table(table), "");
}

TEST(CartPole, SuttonBartoRewardIsZeroThenMinusOne) {
  auto env = meadow::make("CartPole-v1", {{"sutton_barto_reward", true}});
  env->reset(0);
  meadow::StepResult r;
  int steps = 0;
  do {
    r = env->step({1});
    ++steps;
    if (!r.terminated) {
      ASSERT_EQ(r.reward, 0.0);
    }
  } while (!r.terminated && steps < 500);
  ASSERT_TRUE(r.terminated);
  EXPECT_EQ(r.reward, -1.0);
  EXPECT_EQ(env->step({1}).reward, -1.0);
}

TEST(CartPole, SceneHasCartPoleAxleAndTrack) {
  auto env = meadow::make("CartPole-v1");
  env->reset(1);
  const auto scene = env->scene();
  EXPECT_EQ(scene.width, 600);
  EXPECT_EQ(scene.height, 400);
  ASSERT_EQ(scene.shapes.size(), 4u);
  // Cart centred near x = 300, its top edge at y = 400 - 115 (Gymnasium y-up, flipped).
  const auto& cart = scene.shapes[0].points;
  EXPECT_NEAR((cart[0].x + cart[2].x) / 2, 300, 1.0);
  EXPECT_DOUBLE_EQ(cart[1].y, 400 - 115.0);
  EXPECT_EQ(scene.shapes[1].color.r, 202);  // pole
}
