#include "envs/mountain_car_scene.hpp"

#include <cmath>

#include "envs/scene_util.hpp"

namespace meadow::envs {
namespace {

constexpr double kMinPosition = -1.2, kMaxPosition = 0.6;

double height(double x) {
  return std::sin(3 * x) * 0.45 + 0.55;
}

}  // namespace

// Mirrors MountainCarEnv.render(): y up in world pixels, flipped into our top-left frame.
Scene mountain_car_scene(double pos, double goal_position) {
  constexpr int kW = 600, kH = 400;
  const double scale = kW / (kMaxPosition - kMinPosition);
  const double carwidth = 40, carheight = 20, clearance = 10;
  const YUp up{kH};
  Scene scene{kW, kH, {255, 255, 255}, {}};

  std::vector<Point> hill;
  for (int i = 0; i < 100; ++i) {
    const double x = kMinPosition + (kMaxPosition - kMinPosition) * i / 99.0;
    hill.push_back(up((x - kMinPosition) * scale, height(x) * scale));
  }
  scene.shapes.push_back(polyline(std::move(hill), {0, 0, 0}, 1));

  const double angle = std::cos(3 * pos);
  const double base_x = (pos - kMinPosition) * scale;
  const double base_y = clearance + height(pos) * scale;
  const double l = -carwidth / 2, r = carwidth / 2, t = carheight, b = 0;
  std::vector<Point> car;
  for (auto [cx, cy] : {std::pair{l, b}, {l, t}, {r, t}, {r, b}}) {
    const Point c = rotate({cx, cy}, angle);
    car.push_back(up(c.x + base_x, c.y + base_y));
  }
  scene.shapes.push_back(polygon(std::move(car), {0, 0, 0}));
  for (double wx : {carwidth / 4, -carwidth / 4}) {
    const Point c = rotate({wx, 0}, angle);
    scene.shapes.push_back(circle(up(std::trunc(c.x + base_x), std::trunc(c.y + base_y)),
                                  std::trunc(carheight / 2.5), {128, 128, 128}));
  }

  const double flagx = std::trunc((goal_position - kMinPosition) * scale);
  const double flagy1 = std::trunc(height(goal_position) * scale);
  const double flagy2 = flagy1 + 50;
  scene.shapes.push_back(polyline({up(flagx, flagy1), up(flagx, flagy2)}, {0, 0, 0}, 1));
  scene.shapes.push_back(polygon(
      {up(flagx, flagy2), up(flagx, flagy2 - 10), up(flagx + 25, flagy2 - 5)}, {204, 204, 0}));
  return scene;
}

}  // namespace meadow::envs
