// LunarLander-v3 (Gymnasium 1.4.0) on Box2D: land a craft between the flags. Discrete
// actions (noop, left engine, main engine, right engine) or continuous [main, lateral]
// throttles; optional wind and turbulence. The RNG draws follow Gymnasium's order: 12 terrain
// heights, 2 initial-force components, 2 wind/torque offsets (wind only), then 2 dispersion
// draws per step including the step reset() takes.
//
// Exactness: Gymnasium runs pybox2d (Box2D 2.3); we run Debian's Box2D 2.4.1, whose solver
// differs in detail, so trajectories agree in law but not bit for bit. The RNG draws, the
// terrain, the initial force and the formulas for observation and reward are Gymnasium's
// (no recorded trace exists to check the physics against).
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <vector>

#include "envs/np_random.hpp"
#include "meadow/env.hpp"

class b2World;
class b2Body;
class b2ContactListener;

namespace meadow::envs {

struct LunarLanderConfig {
  bool continuous = false;
  double gravity = -10.0;  // Gymnasium requires -12 < gravity < 0
  bool enable_wind = false;
  double wind_power = 15.0;       // recommended 0..20 (not enforced, as in Gymnasium)
  double turbulence_power = 1.5;  // recommended 0..2
};

class LunarLander final : public Env {
 public:
  explicit LunarLander(LunarLanderConfig config = {});
  ~LunarLander() override;
  LunarLander(const LunarLander&) = delete;
  LunarLander& operator=(const LunarLander&) = delete;

  ResetResult reset(std::optional<uint64_t> seed = std::nullopt) override;
  StepResult step(const Values& action) override;
  const Space& observation_space() const override { return obs_space_; }
  const Space& action_space() const override { return act_space_; }
  Scene scene() const override;
  std::string id() const override { return "LunarLander-v3"; }

  bool continuous() const { return config_.continuous; }

  // Called by the contact listener during world steps.
  void on_contact(b2Body* a, b2Body* b, bool begin);

 private:
  // Engine exhaust: decoration only (Gymnasium makes it only when rendering and it never
  // touches the lander), so it is integrated here without Box2D.
  struct Particle {
    double x, y, vx, vy, ttl;
  };

  void make_terrain(NpRandom& rng);
  void make_lander(NpRandom& rng, double initial_x, double initial_y);
  void make_legs(double initial_x, double initial_y);
  StepResult advance(double main_power, double side_power, double direction);
  void apply_wind();
  void fire_engines(double main_power, double side_power, double direction);
  StepResult observe(double main_power, double side_power);
  void emit_particle(double density, double x, double y, double ix, double iy, double ttl);
  void move_particles();
  double terrain_height(double x) const;

  LunarLanderConfig config_;
  Space obs_space_, act_space_;
  EnvRandom rng_;
  // The listener outlives the world that points at it (members die in reverse order).
  std::unique_ptr<b2ContactListener> contacts_;
  std::unique_ptr<b2World> world_;
  b2Body* lander_ = nullptr;
  std::array<b2Body*, 2> legs_{};
  std::array<bool, 2> leg_contact_{};
  bool game_over_ = false;
  std::optional<double> prev_shaping_;
  double helipad_x1_ = 0, helipad_x2_ = 0, helipad_y_ = 0;
  std::array<double, 11> chunk_x_{}, smooth_y_{};
  int64_t wind_idx_ = 0, torque_idx_ = 0;
  std::vector<Particle> particles_;
};

// kwargs: continuous, gravity, enable_wind, wind_power, turbulence_power.
std::unique_ptr<Env> make_lunar_lander(const Kwargs& kwargs);

}  // namespace meadow::envs
