// Every registered env draws through the rasterizer at Gymnasium's render size, at reset and
// during an episode.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "meadow/env.hpp"
#include "meadow/render.hpp"

namespace {

// Gymnasium 1.4.0's rgb_array sizes (width, height).
const std::map<std::string, std::pair<int, int>> kSizes = {
    {"CartPole-v1", {600, 400}},
    {"MountainCar-v0", {600, 400}},
    {"MountainCarContinuous-v0", {600, 400}},
    {"Pendulum-v1", {500, 500}},
    {"Acrobot-v1", {500, 500}},
    {"FrozenLake-v1", {256, 256}},
    {"FrozenLake8x8-v1", {512, 512}},
    {"CliffWalking-v1", {720, 240}},
    {"Taxi-v4", {550, 350}},
    {"LunarLander-v3", {600, 400}},
};

size_t distinct_colours(const meadow::Frame& f) {
  std::set<uint32_t> seen;
  for (size_t i = 0; i < f.rgb.size(); i += 3)
    seen.insert(uint32_t{f.rgb[i]} << 16 | uint32_t{f.rgb[i + 1]} << 8 | f.rgb[i + 2]);
  return seen.size();
}

}  // namespace

TEST(EnvFrames, EveryEnvDrawsAtGymnasiumsSize) {
  for (const meadow::EnvSpec& spec : meadow::env_registry()) {
    SCOPED_TRACE(spec.id);
    auto env = meadow::make(spec.id);
    env->reset(0);
    const meadow::Frame first = meadow::render(*env);
    auto size = kSizes.find(spec.id);
    if (size != kSizes.end()) {
      EXPECT_EQ(first.width, size->second.first);
      EXPECT_EQ(first.height, size->second.second);
    }
    EXPECT_GE(distinct_colours(first), 3u);  // a picture, not a blank canvas
    // A few steps with the first action: still drawable, and the picture moves or stays valid.
    const meadow::Space& a = env->action_space();
    const meadow::Values action = a.kind == meadow::Space::Kind::Discrete
                                      ? meadow::Values{double(a.start + a.n - 1)}
                                      : a.high;
    for (int i = 0; i < 5; ++i) {
      const meadow::StepResult s = env->step(action);
      const meadow::Frame f = meadow::render(*env);
      EXPECT_EQ(f.width, first.width);
      EXPECT_EQ(f.height, first.height);
      if (s.terminated || s.truncated) break;
    }
  }
}
