#include <gtest/gtest.h>

#include "envs/cartpole_vector.hpp"
#include "meadow/error.hpp"

using meadow::envs::CartPoleState;
using meadow::envs::CartPoleVector;

TEST(CartPoleVector, StepsEachCopyWithCartPoleDynamicsAndAutoresetsNextStep) {
  CartPoleVector vec(3, /*max_episode_steps=*/5);
  vec.reset(1);
  std::vector<CartPoleState> mirror = vec.states();
  const std::vector<int> actions{0, 1, 1};
  for (int t = 1; t <= 5; ++t) {
    vec.step(actions);
    for (int i = 0; i < 3; ++i) {
      mirror[i] = meadow::envs::cartpole_dynamics(mirror[i], actions[i]);
      ASSERT_EQ(vec.states()[i].x, mirror[i].x);
      ASSERT_EQ(vec.states()[i].theta_dot, mirror[i].theta_dot);
      ASSERT_EQ(vec.obs()[4 * i + 2], static_cast<float>(mirror[i].theta));
      ASSERT_EQ(vec.rewards()[i], 1.f);
    }
  }
  EXPECT_EQ(vec.truncated()[0], 1);  // 5-step limit reached
  vec.step(actions);                 // next step resets instead of stepping
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(vec.rewards()[i], 0.f);
    EXPECT_EQ(vec.truncated()[i], 0);
    EXPECT_LE(std::abs(vec.states()[i].x), 0.05);
  }
  EXPECT_THROW(vec.step(std::vector<int>{0}), meadow::Error);
  EXPECT_THROW(CartPoleVector(0), meadow::Error);
}
