// `meadow-mind env play`: one episode with a random policy, drawn to a GIF and/or PNGs.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include "cli/env_cli.hpp"
#include "cli/env_json.hpp"
#include "envs/np_random.hpp"
#include "meadow/env.hpp"
#include "meadow/error.hpp"
#include "meadow/render.hpp"
#include "util/json_parse.hpp"

namespace meadow::cli {

double render_fps(const std::string& env_id) {
  // Gymnasium 1.4.0 metadata["render_fps"] of each env class (and meadow's own envs).
  struct Entry {
    const char* prefix;
    double fps;
  };
  static constexpr Entry table[] = {
      {"CartPole", 50},  {"MountainCar", 30}, {"Pendulum", 30}, {"Acrobot", 15},
      {"FrozenLake", 4}, {"CliffWalking", 4}, {"Taxi", 4},      {"LunarLander", 50},
      {"FunnelMaze", 4},  // meadow's own grid world: one move per frame, like toy text
  };
  for (const Entry& e : table)
    if (env_id.rfind(e.prefix, 0) == 0) return e.fps;
  return 30;
}

namespace {

// The traces' action rule: numpy.random.default_rng(1000 + seed); integers(n) for Discrete,
// float32(uniform(low, high)) for Box. So `play --seed s` replays the recorded episode s.
Values random_action(envs::NpRandom& rng, const Space& space) {
  if (space.kind == Space::Kind::Discrete)
    return {static_cast<double>(space.start + rng.integers(space.n))};
  Values v(space.low.size());
  rng.uniform(space.low, space.high, v);
  if (space.dtype == "float32")
    for (double& x : v) x = static_cast<float>(x);
  return v;
}

std::string png_name(const std::string& dir, int index) {
  char name[32];
  std::snprintf(name, sizeof name, "frame_%04d.png", index);
  return (std::filesystem::path(dir) / name).string();
}

}  // namespace

void env_play(const EnvPlayOptions& o) {
  if (o.policy != "random") throw Error("unknown policy '" + o.policy + "' (known: random)");
  const nlohmann::json kwargs = util::parse_json(o.kwargs, "--kwargs");
  if (!kwargs.is_object())
    throw Error("--kwargs must be a JSON object, got " + util::json_excerpt(kwargs));
  const auto env = make(o.env_id, kwargs);
  const double fps = o.fps.value_or(render_fps(o.env_id));
  // GIF delays are whole 1/100 s: above 100 fps frames get zero delays (shown at a viewer's
  // default speed), and NaN or a tiny rate makes no delay at all. (NaN fails both tests.)
  if (!(fps >= 0.1 && fps <= 100)) {
    char got[32];
    std::snprintf(got, sizeof got, "%g", fps);
    throw Error(std::string("--fps must be a number from 0.1 to 100, got ") + got);
  }
  // Without a time limit (CliffWalking) a random walk can last for thousands of steps.
  const int max_steps = o.steps.value_or(1000);

  if (!o.png_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.png_dir, ec);
    if (ec) throw Error("cannot create " + o.png_dir + ": " + ec.message());
  }
  std::optional<GifWriter> gif;
  if (!o.gif.empty()) gif.emplace(o.gif);
  int frame_index = 0;
  auto emit = [&](const Frame& f) {
    // Frame i is shown from round(i * 1000 / fps) ms: no drift at fractional frame times.
    const auto at = [&](int i) { return static_cast<int>(std::lround(i * 1000.0 / fps)); };
    if (gif) gif->add(f, at(frame_index + 1) - at(frame_index));
    if (!o.png_dir.empty()) write_png(png_name(o.png_dir, frame_index), f);
    ++frame_index;
  };

  envs::NpRandom rng(1000 + o.seed);
  env->reset(o.seed);
  const bool draw = gif || !o.png_dir.empty();
  if (draw) emit(render(*env));
  int steps = 0;
  double total = 0;
  std::string ending = "stopped";
  while (steps < max_steps) {
    const StepResult s = env->step(random_action(rng, env->action_space()));
    ++steps;
    total += s.reward;
    if (draw) emit(render(*env));
    if (s.terminated || s.truncated) {
      ending = s.terminated ? "terminated" : "truncated";
      break;
    }
  }
  if (gif) gif->close();

  std::string where;
  if (gif) where += " -> " + o.gif;
  if (!o.png_dir.empty()) where += (where.empty() ? " -> " : ", ") + o.png_dir + "/";
  std::printf("%s seed %llu: %d steps, return %g, %s%s (%d frames)\n", o.env_id.c_str(),
              static_cast<unsigned long long>(o.seed), steps, total, ending.c_str(), where.c_str(),
              frame_index);
}

}  // namespace meadow::cli
