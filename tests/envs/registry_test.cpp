#include <gtest/gtest.h>

#include "meadow/env.hpp"
#include "meadow/error.hpp"

using meadow::Error;
using meadow::make;

namespace {
std::string error_of(auto&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(Registry, ListsCartPoleWithItsTimeLimit) {
  bool found = false;
  for (const auto& spec : meadow::env_registry())
    if (spec.id == "CartPole-v1") {
      found = true;
      EXPECT_EQ(spec.max_episode_steps, 500);
      EXPECT_EQ(spec.reward_threshold, 475.0);
    }
  EXPECT_TRUE(found);
}

TEST(Registry, UnknownIdListsKnownIds) {
  const auto msg = error_of([] { make("CartPole-v9"); });
  EXPECT_NE(msg.find("unknown env id 'CartPole-v9'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("CartPole-v1"), std::string::npos) << msg;
}

TEST(Registry, KwargsAreCheckedByNameAndType) {
  auto msg = error_of([] { make("CartPole-v1", {{"gravity", 3}}); });
  EXPECT_NE(msg.find("unknown kwarg 'gravity'"), std::string::npos) << msg;
  msg = error_of([] { make("CartPole-v1", {{"sutton_barto_reward", "yes"}}); });
  EXPECT_NE(msg.find("'sutton_barto_reward' must be a bool"), std::string::npos) << msg;
  msg = error_of([] { make("CartPole-v1", {{"render_mode", "human"}}); });
  EXPECT_NE(msg.find("render_mode"), std::string::npos) << msg;
  EXPECT_NO_THROW(make("CartPole-v1", {{"render_mode", "rgb_array"}}));
  EXPECT_THROW(make("CartPole-v1", nlohmann::json::array()), Error);
}

// kwargs built in code (not parsed) may nest as deep as they like: make() refuses them before
// anything copies or quotes them, both of which recurse.
TEST(Registry, DeeplyNestedKwargsAreRefusedWithoutRecursing) {
  nlohmann::json deep = nlohmann::json::array();
  for (int i = 0; i < 100000; ++i) {  // moved in, never copied
    nlohmann::json outer = nlohmann::json::array();
    outer.push_back(std::move(deep));
    deep = std::move(outer);
  }
  nlohmann::json kwargs = nlohmann::json::object();
  kwargs["desc"] = std::move(deep);
  auto msg = error_of([&] { make("FrozenLake-v1", kwargs); });
  EXPECT_NE(msg.find("nested deeper than 64 levels"), std::string::npos) << msg.substr(0, 200);
  // A long value in an error is quoted cut short.
  msg = error_of([] { make("CartPole-v1", {{"sutton_barto_reward", std::vector<int>(5000, 1)}}); });
  EXPECT_NE(msg.find("..."), std::string::npos) << msg.substr(0, 200);
  EXPECT_LT(msg.size(), 300u);
}

TEST(Registry, StepBeforeResetAndInvalidActionsThrow) {
  auto env = make("CartPole-v1");
  auto msg = error_of([&] { env->step({0}); });
  EXPECT_NE(msg.find("before reset"), std::string::npos) << msg;
  env->reset(0);
  for (const meadow::Values& bad : {meadow::Values{2}, meadow::Values{-1}, meadow::Values{0.5},
                                    meadow::Values{}, meadow::Values{0, 1}}) {
    msg = error_of([&] { env->step(bad); });
    EXPECT_EQ(msg.rfind("invalid action", 0), 0u) << msg;
  }
  EXPECT_NO_THROW(env->step({1}));
}

TEST(Registry, TimeLimitTruncatesAndCanBeOverridden) {
  auto env = make("CartPole-v1", {{"max_episode_steps", 3}});
  env->reset(0);
  EXPECT_FALSE(env->step({0}).truncated);
  EXPECT_FALSE(env->step({1}).truncated);
  EXPECT_TRUE(env->step({0}).truncated);
  env->reset();
  EXPECT_FALSE(env->step({1}).truncated);  // reset restarts the count
  EXPECT_THROW(make("CartPole-v1", {{"max_episode_steps", 0}}), Error);
}

TEST(Registry, UnseededResetsContinueTheStream) {
  auto a = make("CartPole-v1");
  auto b = make("CartPole-v1");
  const auto first = a->reset(5).obs;
  EXPECT_EQ(b->reset(5).obs, first);
  EXPECT_EQ(a->reset().obs, b->reset().obs);  // same stream continued
  EXPECT_NE(a->reset().obs, first);
}

TEST(Space, DescribeAndContains) {
  auto env = make("CartPole-v1");
  EXPECT_EQ(env->action_space().describe(), "Discrete(2)");
  EXPECT_EQ(env->observation_space().describe(),
            "Box([-4.8 -inf -0.41887903 -inf], [4.8 inf 0.41887903 inf], (4,), float32)");
  EXPECT_TRUE(env->observation_space().contains({0, 1e30, 0.4, -5}));
  EXPECT_FALSE(env->observation_space().contains({5, 0, 0, 0}));
  EXPECT_FALSE(env->observation_space().contains({0, 0, 0}));
}
