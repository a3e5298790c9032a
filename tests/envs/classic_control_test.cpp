// MountainCar, MountainCarContinuous, Acrobot and Pendulum against the recorded Gymnasium
// traces (every step) and reset tables (every seed, internal state at full precision).
#include <gtest/gtest.h>

#include <cmath>

#include "envs/acrobot.hpp"
#include "envs/mountain_car.hpp"
#include "envs/mountain_car_continuous.hpp"
#include "envs/pendulum.hpp"
#include "meadow/error.hpp"
#include "trace_replay.hpp"

using meadow::test::load_trace;
using meadow::test::replay_trace;

namespace {

// Resets env for every seed of the table and compares state_of(env) with the recorded state.
template <class EnvT, class StateFn>
void expect_reset_states(const std::string& file, StateFn state_of) {
  const auto table = load_trace(file);
  EnvT env;
  ASSERT_EQ(table["entries"].size(), 500u);
  for (const auto& e : table["entries"]) {
    env.reset(e["seed"].template get<uint64_t>());
    const std::vector<double> got = state_of(env);
    const auto& want = e["state"];
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_EQ(got[i], want[i].template get<double>()) << file << " seed " << e["seed"];
  }
  EXPECT_EQ(meadow::test::check_reset_table(table), "");
}

}  // namespace

TEST(MountainCar, ReplaysGymnasiumTraces) {
  EXPECT_EQ(replay_trace(load_trace("MountainCar-v0.json")), "");
}

TEST(MountainCar, ResetStatesMatchEverySeed) {
  expect_reset_states<meadow::envs::MountainCarEnv>(
      "reset-seeds-MountainCar-v0.json", [](const auto& env) {
        return std::vector<double>{env.state().position, env.state().velocity};
      });
}

TEST(MountainCarContinuous, ReplaysGymnasiumTraces) {
  EXPECT_EQ(replay_trace(load_trace("MountainCarContinuous-v0.json")), "");
}

TEST(MountainCarContinuous, ResetStatesMatchEverySeed) {
  expect_reset_states<meadow::envs::MountainCarContinuousEnv>(
      "reset-seeds-MountainCarContinuous-v0.json", [](const auto& env) {
        return std::vector<double>{env.state().position, env.state().velocity};
      });
}

TEST(Acrobot, ReplaysGymnasiumTraces) {
  EXPECT_EQ(replay_trace(load_trace("Acrobot-v1.json")), "");
}

TEST(Acrobot, ResetStatesMatchEverySeed) {
  expect_reset_states<meadow::envs::AcrobotEnv>("reset-seeds-Acrobot-v1.json", [](const auto& env) {
    const auto& s = env.state().s;
    return std::vector<double>(s.begin(), s.end());
  });
}

TEST(Pendulum, ReplaysGymnasiumTraces) {
  EXPECT_EQ(replay_trace(load_trace("Pendulum-v1.json")), "");
}

TEST(Pendulum, ResetStatesMatchEverySeed) {
  expect_reset_states<meadow::envs::PendulumEnv>(
      "reset-seeds-Pendulum-v1.json", [](const auto& env) {
        return std::vector<double>{env.state().th, env.state().thdot};
      });
}

TEST(Pendulum, AngleNormalizeUsesFloorMod) {
  using meadow::envs::pendulum_angle_normalize;
  EXPECT_NEAR(pendulum_angle_normalize(3 * M_PI / 2), -M_PI / 2, 1e-12);
  EXPECT_NEAR(pendulum_angle_normalize(-3 * M_PI / 2), M_PI / 2, 1e-12);
  EXPECT_NEAR(pendulum_angle_normalize(0.5), 0.5, 1e-15);
}

TEST(ClassicControl, KwargsChangeTheDynamics) {
  // Heavier gravity makes the pendulum fall faster from the same start.
  auto light = meadow::make("Pendulum-v1");
  auto heavy = meadow::make("Pendulum-v1", {{"g", 20}});
  light->reset(3);
  heavy->reset(3);
  EXPECT_NE(light->step({0.0}).obs, heavy->step({0.0}).obs);
  // A goal velocity no car reaches in one step keeps MountainCar from terminating.
  auto car = meadow::make("MountainCarContinuous-v0", {{"goal_velocity", 1.0}});
  EXPECT_THROW(meadow::make("Pendulum-v1", {{"g", "ten"}}), meadow::Error);
  EXPECT_THROW(meadow::make("Acrobot-v1", {{"book_or_nips", "nips"}}), meadow::Error);
  EXPECT_THROW(meadow::make("MountainCar-v0", {{"goal_velocity", true}}), meadow::Error);
}

TEST(ClassicControl, MalformedBoxActionsAreRejected) {
  auto env = meadow::make("Pendulum-v1");
  env->reset(0);
  for (const meadow::Values& bad :
       {meadow::Values{NAN}, meadow::Values{INFINITY}, meadow::Values{}, meadow::Values{0, 0}}) {
    try {
      env->step(bad);
      ADD_FAILURE() << "accepted a bad action";
    } catch (const meadow::Error& e) {
      EXPECT_EQ(std::string(e.what()).rfind("invalid action", 0), 0u) << e.what();
      EXPECT_NE(std::string(e.what()).find("Box(-2.0, 2.0, (1,), float32)"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_NO_THROW(env->step({2.0}));
}

// Gymnasium clips out-of-range Box actions inside the env, so they give the same episode as
// the bound itself.
TEST(ClassicControl, OutOfRangeBoxActionsAreClippedLikeGymnasium) {
  for (const char* id : {"Pendulum-v1", "MountainCarContinuous-v0"}) {
    auto a = meadow::make(id);
    auto b = meadow::make(id);
    a->reset(3);
    b->reset(3);
    const double high = a->action_space().high[0];
    for (int i = 0; i < 5; ++i) {
      auto ra = a->step({high * 10});
      auto rb = b->step({high});
      EXPECT_EQ(ra.obs, rb.obs) << id;
    }
  }
}

TEST(ClassicControl, TimeLimitsAreGymnasiums) {
  // Pendulum never terminates: the 200-step limit must truncate it.
  auto env = meadow::make("Pendulum-v1");
  env->reset(0);
  meadow::StepResult r;
  for (int i = 0; i < 200; ++i) {
    ASSERT_FALSE(r.truncated);
    r = env->step({0.0});
  }
  EXPECT_TRUE(r.truncated);
  EXPECT_FALSE(r.terminated);
}

TEST(ClassicControl, ScenesHaveGymnasiumSizes) {
  const std::pair<const char*, int> sizes[] = {{"MountainCar-v0", 600},
                                               {"MountainCarContinuous-v0", 600},
                                               {"Acrobot-v1", 500},
                                               {"Pendulum-v1", 500}};
  for (auto [id, w] : sizes) {
    auto env = meadow::make(id);
    env->reset(0);
    const auto scene = env->scene();
    EXPECT_EQ(scene.width, w) << id;
    EXPECT_FALSE(scene.shapes.empty()) << id;
    for (const auto& s : scene.shapes)
      for (const auto& p : s.points) {
        EXPECT_GE(p.x, -1) << id;
        EXPECT_LE(p.x, scene.width + 1) << id;
        EXPECT_GE(p.y, -1) << id;
        EXPECT_LE(p.y, scene.height + 1) << id;
      }
  }
}
