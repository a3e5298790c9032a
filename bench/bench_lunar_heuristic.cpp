// Gymnasium's heuristic lander controller over 1000 seeded episodes of LunarLander-v3
// (discrete and continuous), next to the figures Gymnasium's own env gives the same
// controller (236.9 +- 20 and 283.9 +- 10, quoted in issue 3). Prints mean, std, landings.
// Usage: bench_lunar_heuristic [episodes=1000]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "envs/lunar_lander_heuristic.hpp"
#include "meadow/env.hpp"

#include "bench_util.hpp"

using namespace meadow::bench;

namespace {

struct Summary {
  double mean = 0, std = 0;
  int solved = 0;  // episodes scoring at least 200
  long steps = 0;
};

Summary evaluate(bool continuous, int episodes) {
  auto env = meadow::make("LunarLander-v3", {{"continuous", continuous}});
  std::vector<double> totals;
  Summary s;
  for (int seed = 0; seed < episodes; ++seed) {
    auto obs = env->reset(static_cast<uint64_t>(seed)).obs;
    double total = 0;
    for (;;) {
      auto r = env->step(meadow::envs::lunar_lander_heuristic(obs, continuous));
      total += r.reward;
      obs = r.obs;
      ++s.steps;
      if (r.terminated || r.truncated) break;
    }
    totals.push_back(total);
    s.solved += total >= 200;
  }
  for (double t : totals) s.mean += t / totals.size();
  for (double t : totals) s.std += (t - s.mean) * (t - s.mean) / totals.size();
  s.std = std::sqrt(s.std);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  const int episodes = argc > 1 ? std::atoi(argv[1]) : 1000;
  std::printf("LunarLander-v3 heuristic, seeds 0..%d, machine: %s\n", episodes - 1,
              machine_name().c_str());
  for (bool continuous : {false, true}) {
    const auto t0 = std::chrono::steady_clock::now();
    const Summary s = evaluate(continuous, episodes);
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf(
        "%-10s mean %7.2f  std %6.2f  >=200: %4d/%d  (Gymnasium: %s)  %ld steps, %.0f steps/s\n",
        continuous ? "continuous" : "discrete", s.mean, s.std, s.solved, episodes,
        continuous ? "283.9 +- 10" : "236.9 +- 20", s.steps, s.steps / secs);
  }
  return 0;
}
