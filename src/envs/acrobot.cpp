#include "envs/acrobot.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "envs/factories.hpp"
#include "envs/libm_pow.hpp"
#include "envs/scene_util.hpp"

namespace meadow::envs {
namespace {

constexpr double kPi = std::numbers::pi;
constexpr double kDt = 0.2;
constexpr double kLinkLength1 = 1.0, kLinkLength2 = 1.0;
constexpr double kMass1 = 1.0, kMass2 = 1.0;
constexpr double kCom1 = 0.5, kCom2 = 0.5;
constexpr double kMoi = 1.0;
constexpr double kMaxVel1 = 4 * kPi, kMaxVel2 = 9 * kPi;
constexpr double kTorque[3] = {-1.0, 0.0, 1.0};
constexpr double kG = 9.8;

using Vec5 = std::array<double, 5>;

// _dsdt with the book dynamics. Squares of NumPy float64 scalars are pow(x, 2.0); squares of
// the Python-float constants are exact, so they are written as products.
Vec5 dsdt(const Vec5& y) {
  const double m1 = kMass1, m2 = kMass2, l1 = kLinkLength1, lc1 = kCom1, lc2 = kCom2;
  const double I1 = kMoi, I2 = kMoi;
  const double a = y[4];
  const double theta1 = y[0], theta2 = y[1], dtheta1 = y[2], dtheta2 = y[3];
  const double d1 =
      m1 * (lc1 * lc1) + m2 * ((l1 * l1) + (lc2 * lc2) + 2 * l1 * lc2 * std::cos(theta2)) + I1 + I2;
  const double d2 = m2 * ((lc2 * lc2) + l1 * lc2 * std::cos(theta2)) + I2;
  const double phi2 = m2 * lc2 * kG * std::cos(theta1 + theta2 - kPi / 2.0);
  const double phi1 = -m2 * l1 * lc2 * numpy_square_pow(dtheta2) * std::sin(theta2) -
                      2 * m2 * l1 * lc2 * dtheta2 * dtheta1 * std::sin(theta2) +
                      (m1 * lc1 + m2 * l1) * kG * std::cos(theta1 - kPi / 2) + phi2;
  const double ddtheta2 =
      (a + d2 / d1 * phi1 - m2 * l1 * lc2 * numpy_square_pow(dtheta1) * std::sin(theta2) - phi2) /
      (m2 * (lc2 * lc2) + I2 - numpy_square_pow(d2) / d1);
  const double ddtheta1 = -(d2 * ddtheta2 + phi1) / d1;
  return {dtheta1, dtheta2, ddtheta1, ddtheta2, 0.0};
}

// y + h * k, element by element (NumPy's y0 + dt2 * k1).
Vec5 axpy(const Vec5& y, double h, const Vec5& k) {
  Vec5 out;
  for (size_t i = 0; i < 5; ++i) out[i] = y[i] + h * k[i];
  return out;
}

double wrap(double x, double m, double M) {
  const double diff = M - m;
  while (x > M) x = x - diff;
  while (x < m) x = x + diff;
  return x;
}

// Python's min(max(x, m), M).
double bound(double x, double m, double M) {
  const double lo = m > x ? m : x;
  return M < lo ? M : lo;
}

}  // namespace

bool acrobot_step(AcrobotState& st, int action) {
  const Vec5 y0{st.s[0], st.s[1], st.s[2], st.s[3], kTorque[action]};
  const double dt = kDt - 0;
  const double dt2 = dt / 2.0;
  const Vec5 k1 = dsdt(y0);
  const Vec5 k2 = dsdt(axpy(y0, dt2, k1));
  const Vec5 k3 = dsdt(axpy(y0, dt2, k2));
  const Vec5 k4 = dsdt(axpy(y0, dt, k3));
  const double h = dt / 6.0;
  std::array<double, 4> ns;
  for (size_t i = 0; i < 4; ++i) {
    const double sum = ((k1[i] + 2 * k2[i]) + 2 * k3[i]) + k4[i];
    ns[i] = y0[i] + h * sum;
  }
  ns[0] = wrap(ns[0], -kPi, kPi);
  ns[1] = wrap(ns[1], -kPi, kPi);
  ns[2] = bound(ns[2], -kMaxVel1, kMaxVel1);
  ns[3] = bound(ns[3], -kMaxVel2, kMaxVel2);
  st.s = ns;
  st.is_f32 = false;
  return -std::cos(ns[0]) - std::cos(ns[1] + ns[0]) > 1.0;
}

std::array<float, 6> acrobot_obs(const AcrobotState& st) {
  const auto& s = st.s;
  if (st.is_f32) {  // numpy.cos on float32 scalars: cosf / sinf
    const float t1 = static_cast<float>(s[0]), t2 = static_cast<float>(s[1]);
    return {std::cos(t1),
            std::sin(t1),
            std::cos(t2),
            std::sin(t2),
            static_cast<float>(s[2]),
            static_cast<float>(s[3])};
  }
  return {static_cast<float>(std::cos(s[0])), static_cast<float>(std::sin(s[0])),
          static_cast<float>(std::cos(s[1])), static_cast<float>(std::sin(s[1])),
          static_cast<float>(s[2]),           static_cast<float>(s[3])};
}

AcrobotEnv::AcrobotEnv() {
  obs_space_ = box_space({-1, -1, -1, -1, -kMaxVel1, -kMaxVel2}, {1, 1, 1, 1, kMaxVel1, kMaxVel2});
  action_space_ = discrete_space(3);
}

ResetResult AcrobotEnv::reset(std::optional<uint64_t> seed) {
  rng_.reset(seed);
  NpRandom& rng = rng_.get();
  for (double& v : state_.s) v = static_cast<float>(rng.uniform(-0.1, 0.1));
  state_.is_f32 = true;
  const auto obs = acrobot_obs(state_);
  return {Values(obs.begin(), obs.end()), {}};
}

StepResult AcrobotEnv::step(const Values& action) {
  const bool terminated = acrobot_step(state_, static_cast<int>(action.at(0)));
  const auto obs = acrobot_obs(state_);
  return {Values(obs.begin(), obs.end()), terminated ? 0.0 : -1.0, terminated, false, {}};
}

// Mirrors AcrobotEnv.render(): 500x500; note Gymnasium swaps x and y of the link ends.
Scene AcrobotEnv::scene() const {
  constexpr int kDim = 500;
  const auto& s = state_.s;
  const double bound_m = kLinkLength1 + kLinkLength2 + 0.2;
  const double scale = kDim / (bound_m * 2);
  const double offset = kDim / 2.0;
  const YUp up{kDim};
  Scene scene{kDim, kDim, {255, 255, 255}, {}};

  const Point p1{-kLinkLength1 * std::cos(s[0]) * scale, kLinkLength1 * std::sin(s[0]) * scale};
  const Point ends[2] = {{0, 0}, {p1.y, p1.x}};  // [:, ::-1]
  const double thetas[2] = {s[0] - kPi / 2, s[0] + s[1] - kPi / 2};
  const double lengths[2] = {kLinkLength1 * scale, kLinkLength2 * scale};

  scene.shapes.push_back(polyline(
      {up(-2.2 * scale + offset, 1 * scale + offset), up(2.2 * scale + offset, 1 * scale + offset)},
      {0, 0, 0}, 1));
  for (int i = 0; i < 2; ++i) {
    const double x = ends[i].x + offset, y = ends[i].y + offset;
    const double l = 0, r = lengths[i], t = 0.1 * scale, b = -0.1 * scale;
    std::vector<Point> link;
    for (auto [cx, cy] : {std::pair{l, b}, {l, t}, {r, t}, {r, b}}) {
      const Point c = rotate({cx, cy}, thetas[i]);
      link.push_back(up(c.x + x, c.y + y));
    }
    scene.shapes.push_back(polygon(std::move(link), {0, 204, 204}));
    scene.shapes.push_back(
        circle(up(std::trunc(x), std::trunc(y)), std::trunc(0.1 * scale), {204, 204, 0}));
  }
  return scene;
}

std::unique_ptr<Env> make_acrobot(const Kwargs&) {
  return std::make_unique<AcrobotEnv>();
}

}  // namespace meadow::envs
