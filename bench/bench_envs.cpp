// Environment stepping speed, single-threaded, no rendering:
//  1. CartPole-v1 through CartPoleEnv::step_state (the allocation-free hot path);
//  2. CartPole-v1 as a vector of 64 copies (CartPoleVector, Gymnasium's next-step autoreset);
//  3. every registered env through meadow::make (the Env interface with its TimeLimit,
//     order and action checks), random valid actions, reset when an episode ends.
// Gymnasium's figures: none known — Gymnasium publishes no steps/s for these envs, so the
// Gymnasium column says so instead of guessing. Usage: bench_envs [seconds_per_case=0.3]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "envs/acrobot.hpp"
#include "envs/cartpole.hpp"
#include "envs/cartpole_vector.hpp"
#include "envs/mountain_car.hpp"
#include "envs/mountain_car_continuous.hpp"
#include "envs/pendulum.hpp"
#include "meadow/env.hpp"

#include "bench_util.hpp"

using namespace meadow::bench;

namespace {

using Clock = std::chrono::steady_clock;

// A cheap action source so that the RNG does not dominate the measurement.
struct XorShift {
  uint64_t s = 0x9E3779B97F4A7C15ull;
  uint64_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
};

template <class Fn>
double steps_per_second(double seconds, Fn&& run_batch) {
  long steps = 0;
  const auto start = Clock::now();
  double elapsed = 0;
  while (elapsed < seconds) {
    steps += run_batch();
    elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  }
  return steps / elapsed;
}

void print_row(const std::string& what, double sps) {
  std::printf("%-52s %12.0f steps/s   Gymnasium: none known\n", what.c_str(), sps);
}

meadow::Values random_action(const meadow::Space& space, XorShift& rng) {
  if (space.kind == meadow::Space::Kind::Discrete)
    return {static_cast<double>(space.start + static_cast<int64_t>(rng.next() % space.n))};
  meadow::Values a(space.low.size());
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = static_cast<float>(space.low[i] + (space.high[i] - space.low[i]) * rng.unit());
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 0.3;
  std::printf("bench_envs on %s, single thread, %.2f s per case\n", machine_name().c_str(),
              seconds);

  {
    meadow::envs::CartPoleEnv env;
    env.reset_state(0);
    XorShift rng;
    double sink = 0;
    const double sps = steps_per_second(seconds, [&] {
      for (int i = 0; i < 100000; ++i) {
        const auto out = env.step_state(static_cast<int>(rng.next() & 1));
        sink += out.reward;
        if (out.terminated) env.reset_state();
      }
      return 100000L;
    });
    print_row("CartPole-v1 step_state (hot path)", sps);
    if (sink < 0) std::puts("");  // keeps the loop observable
  }

  {
    meadow::envs::CartPoleVector vec(64);
    vec.reset(0);
    std::vector<int> actions(64);
    XorShift rng;
    const double sps = steps_per_second(seconds, [&] {
      for (int i = 0; i < 2000; ++i) {
        for (int& a : actions) a = static_cast<int>(rng.next() & 1);
        vec.step(actions);
      }
      return 2000L * 64;
    });
    print_row("CartPole-v1 x64 (CartPoleVector, env-steps)", sps);
  }

  // The other classic-control envs' state-struct step functions (no Env interface).
  {
    namespace e = meadow::envs;
    XorShift rng;
    double sink = 0;
    e::MountainCarState car{-0.5, 0};
    print_row("MountainCar-v0 mountain_car_step (hot path)", steps_per_second(seconds, [&] {
                for (int i = 0; i < 100000; ++i)
                  if (e::mountain_car_step(car, static_cast<int>(rng.next() % 3), 0))
                    car = {-0.5, 0};
                return 100000L;
              }));
    e::MountainCarContinuousState ccar{-0.5, 0};
    print_row("MountainCarContinuous-v0 step (hot path)", steps_per_second(seconds, [&] {
                for (int i = 0; i < 100000; ++i) {
                  const float a = static_cast<float>(2 * rng.unit() - 1);
                  const auto out = e::mountain_car_continuous_step(ccar, a, 0);
                  sink += out.reward;
                  if (out.terminated) ccar = {-0.5, 0};
                }
                return 100000L;
              }));
    e::AcrobotState arm;
    print_row("Acrobot-v1 acrobot_step (hot path)", steps_per_second(seconds, [&] {
                for (int i = 0; i < 20000; ++i)
                  if (e::acrobot_step(arm, static_cast<int>(rng.next() % 3))) arm = {};
                return 20000L;
              }));
    e::PendulumState pend{1.0, 0.0};
    print_row("Pendulum-v1 pendulum_step (hot path)", steps_per_second(seconds, [&] {
                for (int i = 0; i < 100000; ++i)
                  sink += e::pendulum_step(pend, static_cast<float>(4 * rng.unit() - 2), 10.0);
                return 100000L;
              }));
    if (sink > 0) std::puts("");
  }

  for (const auto& spec : meadow::env_registry()) {
    auto env = meadow::make(spec.id);
    env->reset(0);
    XorShift rng;
    const auto& space = env->action_space();
    const double sps = steps_per_second(seconds, [&] {
      for (int i = 0; i < 2000; ++i) {
        const auto r = env->step(random_action(space, rng));
        if (r.terminated || r.truncated) env->reset();
      }
      return 2000L;
    });
    print_row(spec.id + " via make() (Env interface)", sps);
  }
  return 0;
}
