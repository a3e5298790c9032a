// LunarLander-v3: Gymnasium's observation and reward laws, kwarg validation, and the
// heuristic controller landing well enough to catch physics bugs (20 seeds; the full
// 1000-seed evaluation is bench/bench_lunar_heuristic.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "envs/lunar_lander_heuristic.hpp"
#include "envs/np_random.hpp"
#include "meadow/env.hpp"
#include "meadow/error.hpp"

namespace {

using meadow::Values;

double run_heuristic_episode(meadow::Env& env, uint64_t seed, bool continuous) {
  auto obs = env.reset(seed).obs;
  double total = 0;
  for (;;) {
    auto r = env.step(meadow::envs::lunar_lander_heuristic(obs, continuous));
    total += r.reward;
    obs = r.obs;
    if (r.terminated || r.truncated) return total;
  }
}

TEST(LunarLander, SpacesAndResetObservation) {
  auto env = meadow::make("LunarLander-v3");
  EXPECT_EQ(env->action_space().describe(), "Discrete(4)");
  EXPECT_EQ(env->observation_space().shape, std::vector<int64_t>{8});
  const auto obs = env->reset(0).obs;
  ASSERT_EQ(obs.size(), 8u);
  // Starts at the top centre: x near 0, y about 1.4 (pad height units), legs in the air.
  EXPECT_LT(std::abs(obs[0]), 0.05);
  EXPECT_GT(obs[1], 1.3);
  EXPECT_LT(obs[1], 1.5);
  EXPECT_EQ(obs[6], 0.0);
  EXPECT_EQ(obs[7], 0.0);
  // Same seed, same episode start; another seed, another initial push.
  EXPECT_EQ(env->reset(0).obs, obs);
  EXPECT_NE(env->reset(1).obs, obs);
  auto cont = meadow::make("LunarLander-v3", {{"continuous", true}});
  EXPECT_EQ(cont->action_space().describe(), "Box(-1.0, 1.0, (2,), float32)");
}

TEST(LunarLander, FreeFallAcceleratesDownAndCrashes) {
  auto env = meadow::make("LunarLander-v3");
  auto prev = env->reset(3).obs;
  bool crashed = false;
  for (int t = 0; t < 1000 && !crashed; ++t) {
    auto r = env->step({0});
    if (r.terminated) {
      crashed = true;
      // No engines: it hits the moon hard (body contact) or drifts out: either way -100.
      EXPECT_EQ(r.reward, -100);
      break;
    }
    if (t < 20) EXPECT_LT(r.obs[3], prev[3]) << "vertical speed must keep decreasing at step " << t;
    prev = r.obs;
  }
  EXPECT_TRUE(crashed);
}

double shaping(const Values& s) {
  return -100 * std::sqrt(s[0] * s[0] + s[1] * s[1]) - 100 * std::sqrt(s[2] * s[2] + s[3] * s[3]) -
         100 * std::abs(s[4]) + 10 * s[6] + 10 * s[7];
}

// reward = shaping(obs) - shaping(prev obs) - 0.3 per main-engine step - 0.03 per side step
// (the obs are float32 roundings of the state Gymnasium shapes, hence the tolerance).
TEST(LunarLander, RewardFollowsGymnasiumShaping) {
  auto env = meadow::make("LunarLander-v3");
  auto prev = env->reset(11).obs;
  const int actions[] = {0, 2, 1, 3, 2, 2, 0, 1};
  for (int t = 0; t < 40; ++t) {
    const int a = actions[t % 8];
    auto r = env->step({static_cast<double>(a)});
    ASSERT_FALSE(r.terminated);
    const double fuel = a == 2 ? 0.30 : (a == 1 || a == 3) ? 0.03 : 0.0;
    EXPECT_NEAR(r.reward, shaping(r.obs) - shaping(prev) - fuel, 1e-3) << "step " << t;
    prev = r.obs;
  }
}

TEST(LunarLander, MainEngineCostsFuelAndPushesUp) {
  auto idle = meadow::make("LunarLander-v3");
  auto burn = meadow::make("LunarLander-v3");
  idle->reset(5);
  burn->reset(5);
  meadow::StepResult a, b;
  for (int t = 0; t < 10; ++t) {
    a = idle->step({0});
    b = burn->step({2});
  }
  EXPECT_GT(b.obs[3], a.obs[3] + 0.2);  // the main engine slows the fall
}

TEST(LunarLander, KwargErrors) {
  EXPECT_THROW(meadow::make("LunarLander-v3", {{"gravity", -12.0}}), meadow::Error);
  EXPECT_THROW(meadow::make("LunarLander-v3", {{"gravity", 0.0}}), meadow::Error);
  EXPECT_THROW(meadow::make("LunarLander-v3", {{"continuous", 1}}), meadow::Error);
  EXPECT_THROW(meadow::make("LunarLander-v3", {{"wind", true}}), meadow::Error);
  EXPECT_NO_THROW(meadow::make("LunarLander-v3", {{"gravity", -1.62}, {"enable_wind", true}}));
  auto env = meadow::make("LunarLander-v3");
  EXPECT_THROW(env->step({0}), meadow::Error);  // before reset
  env->reset(0);
  EXPECT_THROW(env->step({4}), meadow::Error);
  EXPECT_THROW(env->step({0.5}), meadow::Error);
}

TEST(LunarLander, WindPushesSideways) {
  auto calm = meadow::make("LunarLander-v3");
  auto windy = meadow::make("LunarLander-v3", {{"enable_wind", true}, {"wind_power", 20.0}});
  calm->reset(7);
  windy->reset(7);
  double max_dx = 0;
  for (int t = 0; t < 40; ++t) {
    auto a = calm->step({0}), b = windy->step({0});
    max_dx = std::max(max_dx, std::abs(a.obs[2] - b.obs[2]));
    if (a.terminated || b.terminated) break;
  }
  EXPECT_GT(max_dx, 0.01);
}

// Gymnasium's heuristic scores 236.9 (discrete) and 283.9 (continuous) on average; 20 seeds
// of a working port land well above 150, a physics bug (wrong scale, engines, legs) does not.
TEST(LunarLander, HeuristicLandsDiscrete) {
  auto env = meadow::make("LunarLander-v3");
  double sum = 0;
  for (uint64_t seed = 0; seed < 20; ++seed) sum += run_heuristic_episode(*env, seed, false);
  EXPECT_GT(sum / 20, 180);
  EXPECT_LT(sum / 20, 300);
}

TEST(LunarLander, HeuristicLandsContinuous) {
  auto env = meadow::make("LunarLander-v3", {{"continuous", true}});
  double sum = 0;
  for (uint64_t seed = 0; seed < 20; ++seed) sum += run_heuristic_episode(*env, seed, true);
  EXPECT_GT(sum / 20, 220);
  EXPECT_LT(sum / 20, 320);
}

// The terrain comes from the first 12 draws of the seeded stream, as in Gymnasium: heights
// uniform(0, H/2), the five middle ones set to the helipad (H/4), smoothed with height[-1]
// wrapping to the last one. Checked through the sky polygons of the picture.
TEST(LunarLander, TerrainFromFirstTwelveDraws) {
  auto env = meadow::make("LunarLander-v3");
  for (uint64_t seed : {0u, 9u, 123u}) {
    env->reset(seed);
    meadow::envs::NpRandom rng(seed);
    const double H = 400 / 30.0;
    double h[12];
    for (double& x : h) x = rng.uniform(0, H / 2);
    for (int i = 3; i <= 7; ++i) h[i] = H / 4;
    const auto scene = env->scene();
    int chunk = 0;
    for (const auto& s : scene.shapes) {
      if (s.kind != meadow::Shape::Kind::Polygon || s.color.r != 0 || s.color.g != 0) continue;
      if (chunk >= 10) break;
      const double smooth = 0.33 * (h[(chunk + 11) % 12] + h[chunk] + h[chunk + 1]);
      EXPECT_NEAR(s.points[0].x, chunk * 2.0 * 30, 1e-9);
      EXPECT_NEAR(s.points[0].y, 400 - smooth * 30, 1e-9) << "seed " << seed << " chunk " << chunk;
      ++chunk;
    }
    EXPECT_EQ(chunk, 10);
  }
}

TEST(LunarLander, SceneShowsTerrainLanderAndFlags) {
  auto env = meadow::make("LunarLander-v3");
  env->reset(0);
  for (int t = 0; t < 5; ++t) env->step({2});
  const auto scene = env->scene();
  EXPECT_EQ(scene.width, 600);
  EXPECT_EQ(scene.height, 400);
  int purple = 0, flags = 0, particles = 0;
  for (const auto& s : scene.shapes) {
    if (s.kind == meadow::Shape::Kind::Polygon && s.color.r == 128 && s.color.b == 230) ++purple;
    if (s.kind == meadow::Shape::Kind::Polygon && s.color.r == 204 && s.color.g == 204) ++flags;
    if (s.kind == meadow::Shape::Kind::Circle) ++particles;
  }
  EXPECT_EQ(purple, 3);  // hull and two legs
  EXPECT_EQ(flags, 2);
  EXPECT_GT(particles, 0);  // main engine exhaust
}

}  // namespace
