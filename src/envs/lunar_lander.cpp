#include "envs/lunar_lander.hpp"

#include <box2d/box2d.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "envs/kwargs.hpp"
#include "envs/lunar_lander_constants.hpp"
#include "envs/scene_util.hpp"
#include "meadow/error.hpp"

namespace meadow::envs {
namespace {

using namespace lunar;

// Gymnasium's ContactDetector: any contact of the lander body ends the game; legs report
// ground contact while touching.
class ContactDetector final : public b2ContactListener {
 public:
  explicit ContactDetector(LunarLander& env) : env_(env) {}
  void BeginContact(b2Contact* c) override {
    env_.on_contact(c->GetFixtureA()->GetBody(), c->GetFixtureB()->GetBody(), true);
  }
  void EndContact(b2Contact* c) override {
    env_.on_contact(c->GetFixtureA()->GetBody(), c->GetFixtureB()->GetBody(), false);
  }

 private:
  LunarLander& env_;
};

b2Vec2 vec(double x, double y) {
  return {static_cast<float>(x), static_cast<float>(y)};
}

}  // namespace

LunarLander::LunarLander(LunarLanderConfig config) : config_(config) {
  if (!(config_.gravity > -12.0 && config_.gravity < 0.0))
    throw Error("LunarLander-v3: gravity (current value: " + std::to_string(config_.gravity) +
                ") must be between -12 and 0");
  // v3 bounds: x, y +-2.5, velocities +-10, angle +-2 pi, legs 0..1 (as float32).
  const double two_pi = static_cast<float>(2 * std::numbers::pi);
  obs_space_ = box_space({-2.5, -2.5, -10, -10, -two_pi, -10, -0.0, -0.0},
                         {2.5, 2.5, 10, 10, two_pi, 10, 1, 1});
  act_space_ = config_.continuous ? box_space({-1, -1}, {1, 1}) : discrete_space(4);
}

LunarLander::~LunarLander() = default;

void LunarLander::on_contact(b2Body* a, b2Body* b, bool begin) {
  if (begin && (a == lander_ || b == lander_)) game_over_ = true;
  for (int i = 0; i < 2; ++i)
    if (legs_[i] == a || legs_[i] == b) leg_contact_[i] = begin;
}

ResetResult LunarLander::reset(std::optional<uint64_t> seed) {
  rng_.reset(seed);
  NpRandom& rng = rng_.get();
  // v3 builds a fresh world on every reset (Gymnasium issue 728).
  lander_ = nullptr;
  legs_ = {};
  world_.reset();
  contacts_ = std::make_unique<ContactDetector>(*this);
  world_ = std::make_unique<b2World>(vec(0, config_.gravity));
  world_->SetContactListener(contacts_.get());
  game_over_ = false;
  prev_shaping_.reset();
  leg_contact_ = {false, false};
  particles_.clear();

  // The draws in Gymnasium's order: terrain heights, the initial push, the wind phases.
  make_terrain(rng);
  const double initial_x = kViewportW / kScale / 2, initial_y = kViewportH / kScale;
  make_lander(rng, initial_x, initial_y);
  make_legs(initial_x, initial_y);

  // Gymnasium returns the observation of one idle step (which also draws dispersion).
  return {advance(0, 0, 0).obs, {}};
}

// The moon: 11 chunks of terrain around a flat helipad, as edges of one static body.
void LunarLander::make_terrain(NpRandom& rng) {
  // Terrain: 12 heights (the last only reached through Python's height[-1]), the five around
  // the middle flattened to the helipad, then a 3-point smoothing.
  constexpr int kChunks = 11;
  std::array<double, kChunks + 1> height{};
  for (double& h : height) h = rng.uniform(0, kH / 2);
  for (int i = 0; i < kChunks; ++i) chunk_x_[i] = kW / (kChunks - 1) * i;
  helipad_x1_ = chunk_x_[kChunks / 2 - 1];
  helipad_x2_ = chunk_x_[kChunks / 2 + 1];
  helipad_y_ = kH / 4;
  for (int i = kChunks / 2 - 2; i <= kChunks / 2 + 2; ++i) height[i] = helipad_y_;
  for (int i = 0; i < kChunks; ++i) {
    const double prev = height[(i + kChunks) % (kChunks + 1)];  // i - 1, wrapping like [-1]
    smooth_y_[i] = 0.33 * (prev + height[i] + height[i + 1]);
  }

  b2BodyDef moon_def;
  b2Body* moon = world_->CreateBody(&moon_def);
  b2EdgeShape floor;
  floor.SetTwoSided(vec(0, 0), vec(kW, 0));
  b2FixtureDef floor_fixture;  // pybox2d's defaults: density 0, friction 0.2
  floor_fixture.shape = &floor;
  moon->CreateFixture(&floor_fixture);
  for (int i = 0; i < kChunks - 1; ++i) {
    b2EdgeShape edge;
    edge.SetTwoSided(vec(chunk_x_[i], smooth_y_[i]), vec(chunk_x_[i + 1], smooth_y_[i + 1]));
    b2FixtureDef fd;
    fd.shape = &edge;
    fd.density = 0;
    fd.friction = 0.1f;
    moon->CreateFixture(&fd);
  }
}

// The lander's hull at (x, y), pushed by a random force; the wind's phases when it blows.
void LunarLander::make_lander(NpRandom& rng, double initial_x, double initial_y) {
  b2BodyDef lander_def;
  lander_def.type = b2_dynamicBody;
  lander_def.position = vec(initial_x, initial_y);
  lander_def.angle = 0;
  lander_ = world_->CreateBody(&lander_def);
  b2Vec2 hull[kLanderPoly.size()];
  for (size_t i = 0; i < kLanderPoly.size(); ++i)
    hull[i] = vec(kLanderPoly[i][0] / kScale, kLanderPoly[i][1] / kScale);
  b2PolygonShape hull_shape;
  hull_shape.Set(hull, static_cast<int32>(kLanderPoly.size()));
  b2FixtureDef hull_fixture;
  hull_fixture.shape = &hull_shape;
  hull_fixture.density = 5.0f;
  hull_fixture.friction = 0.1f;
  hull_fixture.filter.categoryBits = 0x0010;
  hull_fixture.filter.maskBits = 0x001;  // collide only with the ground
  hull_fixture.restitution = 0.0f;
  lander_->CreateFixture(&hull_fixture);
  const double fx = rng.uniform(-kInitialRandom, kInitialRandom);
  const double fy = rng.uniform(-kInitialRandom, kInitialRandom);
  lander_->ApplyForceToCenter(vec(fx, fy), true);

  if (config_.enable_wind) {  // v3 draws the wind and torque phases on every reset
    wind_idx_ = rng.integers(-9999, 9999);
    torque_idx_ = rng.integers(-9999, 9999);
  }
}

// The two legs, each on a sprung revolute joint to the hull.
void LunarLander::make_legs(double initial_x, double initial_y) {
  for (int k = 0; k < 2; ++k) {
    const int i = k == 0 ? -1 : +1;
    b2BodyDef leg_def;
    leg_def.type = b2_dynamicBody;
    leg_def.position = vec(initial_x - i * kLegAway / kScale, initial_y);
    leg_def.angle = static_cast<float>(i * 0.05);
    b2Body* leg = world_->CreateBody(&leg_def);
    b2PolygonShape box;
    box.SetAsBox(static_cast<float>(kLegW / kScale), static_cast<float>(kLegH / kScale));
    b2FixtureDef fd;
    fd.shape = &box;
    fd.density = 1.0f;
    fd.restitution = 0.0f;
    fd.filter.categoryBits = 0x0020;
    fd.filter.maskBits = 0x001;
    leg->CreateFixture(&fd);

    b2RevoluteJointDef rjd;
    rjd.bodyA = lander_;
    rjd.bodyB = leg;
    rjd.localAnchorA = vec(0, 0);
    rjd.localAnchorB = vec(i * kLegAway / kScale, kLegDown / kScale);
    rjd.enableMotor = true;
    rjd.enableLimit = true;
    rjd.maxMotorTorque = static_cast<float>(kLegSpringTorque);
    rjd.motorSpeed = static_cast<float>(+0.3 * i);  // low enough not to jump back into the sky
    if (i == -1) {
      rjd.lowerAngle = static_cast<float>(+0.9 - 0.5);
      rjd.upperAngle = +0.9f;
    } else {
      rjd.lowerAngle = -0.9f;
      rjd.upperAngle = static_cast<float>(-0.9 + 0.5);
    }
    world_->CreateJoint(&rjd);
    legs_[k] = leg;
  }
}

StepResult LunarLander::step(const Values& action) {
  if (!lander_) throw Error("LunarLander-v3: step() called before reset()");
  if (config_.continuous) {
    if (action.size() != 2 || !std::isfinite(action[0]) || !std::isfinite(action[1]))
      throw Error("LunarLander-v3: continuous action must be 2 finite numbers [main, lateral]");
    // np.clip(action, -1, +1) in float64, then the throttle mappings.
    const double main = std::clamp(action[0], -1.0, 1.0);
    const double lateral = std::clamp(action[1], -1.0, 1.0);
    const double m_power = main > 0.0 ? (std::clamp(main, 0.0, 1.0) + 1.0) * 0.5 : 0.0;
    const bool side_on = std::abs(lateral) > 0.5;
    const double s_power = side_on ? std::clamp(std::abs(lateral), 0.5, 1.0) : 0.0;
    const double direction = lateral > 0 ? 1.0 : lateral < 0 ? -1.0 : 0.0;
    return advance(m_power, s_power, side_on ? direction : 0.0);
  }
  if (action.size() != 1 || !(action[0] == 0 || action[0] == 1 || action[0] == 2 || action[0] == 3))
    throw Error("LunarLander-v3: discrete action must be one of 0, 1, 2, 3");
  const int a = static_cast<int>(action[0]);
  return advance(a == 2 ? 1.0 : 0.0, (a == 1 || a == 3) ? 1.0 : 0.0, a - 2.0);
}

// One Gymnasium step given the engine powers (0 = off) and the side-engine direction.
StepResult LunarLander::advance(double m_power, double s_power, double direction) {
  apply_wind();
  fire_engines(m_power, s_power, direction);
  world_->Step(static_cast<float>(1.0 / kFps), 6 * 30, 2 * 30);
  move_particles();
  return observe(m_power, s_power);
}

// Wind and turbulence while no leg touches the ground.
void LunarLander::apply_wind() {
  if (config_.enable_wind && !(leg_contact_[0] || leg_contact_[1])) {
    // tanh(sin(2 k t) + sin(pi k t)), k = 0.01: never periodic.
    const double t = static_cast<double>(wind_idx_);
    const double wind_mag =
        std::tanh(std::sin(0.02 * t) + std::sin(std::numbers::pi * 0.01 * t)) * config_.wind_power;
    ++wind_idx_;
    lander_->ApplyForceToCenter(vec(wind_mag, 0.0), true);
    const double q = static_cast<double>(torque_idx_);
    const double torque_mag =
        std::tanh(std::sin(0.02 * q) + std::sin(std::numbers::pi * 0.01 * q)) *
        config_.turbulence_power;
    ++torque_idx_;
    lander_->ApplyTorque(static_cast<float>(torque_mag), true);
  }
}

// The engines' impulses and particles; two dispersion draws every step, fired or not.
void LunarLander::fire_engines(double m_power, double s_power, double direction) {
  const double angle = lander_->GetAngle();
  const double tip[2] = {std::sin(angle), std::cos(angle)};
  const double side[2] = {-tip[1], tip[0]};
  NpRandom& rng = rng_.get();
  double dispersion[2];
  for (double& d : dispersion) d = rng.uniform(-1.0, +1.0) / kScale;

  if (m_power > 0) {
    const double reach = kMainEngineYLocation / kScale + 2 * dispersion[0];
    const double ox = tip[0] * reach + side[0] * dispersion[1];
    const double oy = -tip[1] * reach - side[1] * dispersion[1];
    const b2Vec2 pos = lander_->GetPosition();
    const double px = pos.x + ox, py = pos.y + oy;
    emit_particle(3.5, px, py, ox * kMainEnginePower * m_power, oy * kMainEnginePower * m_power,
                  m_power);
    lander_->ApplyLinearImpulse(
        vec(-ox * kMainEnginePower * m_power, -oy * kMainEnginePower * m_power), vec(px, py), true);
  }
  if (s_power > 0) {
    const double lever = 3 * dispersion[1] + direction * kSideEngineAway / kScale;
    const double ox = tip[0] * dispersion[0] + side[0] * lever;
    const double oy = -tip[1] * dispersion[0] - side[1] * lever;
    const b2Vec2 pos = lander_->GetPosition();
    // Gymnasium uses 17 here and SIDE_ENGINE_HEIGHT (14) below: an orientation-dependent torque.
    const double px = pos.x + ox - tip[0] * 17 / kScale;
    const double py = pos.y + oy + tip[1] * kSideEngineHeight / kScale;
    emit_particle(0.7, px, py, ox * kSideEnginePower * s_power, oy * kSideEnginePower * s_power,
                  s_power);
    lander_->ApplyLinearImpulse(
        vec(-ox * kSideEnginePower * s_power, -oy * kSideEnginePower * s_power), vec(px, py), true);
  }
}

// The observation, the shaped reward (fuel included) and the end of the episode.
StepResult LunarLander::observe(double m_power, double s_power) {
  const b2Vec2 pos = lander_->GetPosition();
  const b2Vec2 vel = lander_->GetLinearVelocity();
  const double half_w = kViewportW / kScale / 2, half_h = kViewportH / kScale / 2;
  const std::array<double, 8> state = {
      (pos.x - half_w) / half_w,   (pos.y - (helipad_y_ + kLegDown / kScale)) / half_h,
      vel.x * half_w / kFps,       vel.y * half_h / kFps,
      lander_->GetAngle(),         20.0 * lander_->GetAngularVelocity() / kFps,
      leg_contact_[0] ? 1.0 : 0.0, leg_contact_[1] ? 1.0 : 0.0,
  };

  const double shaping = -100 * std::sqrt(state[0] * state[0] + state[1] * state[1]) -
                         100 * std::sqrt(state[2] * state[2] + state[3] * state[3]) -
                         100 * std::abs(state[4]) + 10 * state[6] + 10 * state[7];
  double reward = prev_shaping_ ? shaping - *prev_shaping_ : 0.0;
  prev_shaping_ = shaping;
  reward -= m_power * 0.30;  // fuel: about -30 for a heuristic landing
  reward -= s_power * 0.03;

  bool terminated = false;
  if (game_over_ || std::abs(state[0]) >= 1.0) {
    terminated = true;
    reward = -100;
  }
  if (!lander_->IsAwake()) {  // came to rest
    terminated = true;
    reward = +100;
  }
  StepResult r;
  r.obs.reserve(8);
  for (double v : state) r.obs.push_back(static_cast<float>(v));
  r.reward = reward;
  r.terminated = terminated;
  return r;
}

void LunarLander::emit_particle(double density, double x, double y, double ix, double iy,
                                double ttl) {
  const double radius = 2 / kScale;
  const double mass = density * std::numbers::pi * radius * radius;
  particles_.push_back({x, y, ix / mass, iy / mass, ttl});
}

double LunarLander::terrain_height(double x) const {
  for (size_t i = 0; i + 1 < chunk_x_.size(); ++i)
    if (x <= chunk_x_[i + 1]) {
      const double t = (x - chunk_x_[i]) / (chunk_x_[i + 1] - chunk_x_[i]);
      return smooth_y_[i] + t * (smooth_y_[i + 1] - smooth_y_[i]);
    }
  return smooth_y_.back();
}

// Ballistic flight with a damped bounce on the terrain; each step ages a particle by 0.15,
// as each Gymnasium render does, and drops it once its ttl is below zero.
void LunarLander::move_particles() {
  const double dt = 1.0 / kFps;
  for (auto& p : particles_) {
    p.vy += config_.gravity * dt;
    p.x += p.vx * dt;
    p.y += p.vy * dt;
    const double ground = terrain_height(std::clamp(p.x, 0.0, kW));
    if (p.y < ground) {
      p.y = ground;
      p.vy = -0.3 * p.vy;
    }
    p.ttl -= 0.15;
  }
  std::erase_if(particles_, [](const Particle& p) { return p.ttl < 0; });
}

std::unique_ptr<Env> make_lunar_lander(const Kwargs& kwargs) {
  LunarLanderConfig c;
  c.continuous = kwarg_or(kwargs, "continuous", c.continuous);
  c.gravity = kwarg_or(kwargs, "gravity", c.gravity);
  c.enable_wind = kwarg_or(kwargs, "enable_wind", c.enable_wind);
  c.wind_power = kwarg_or(kwargs, "wind_power", c.wind_power);
  c.turbulence_power = kwarg_or(kwargs, "turbulence_power", c.turbulence_power);
  return std::make_unique<LunarLander>(c);
}

}  // namespace meadow::envs
