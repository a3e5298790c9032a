// LunarLander's picture as Gymnasium draws it (600 x 400, y up, flipped): white moon surface,
// black sky above the terrain, engine particles fading from white-hot to red, the lander and
// legs in purple with a dark outline, and the two yellow helipad flags.
#include <box2d/box2d.h>

#include <algorithm>

#include "envs/lunar_lander.hpp"
#include "envs/lunar_lander_constants.hpp"
#include "envs/scene_util.hpp"

namespace meadow::envs {

using namespace lunar;

Scene LunarLander::scene() const {
  Scene scene;
  scene.width = static_cast<int>(kViewportW);
  scene.height = static_cast<int>(kViewportH);
  scene.background = {255, 255, 255};
  if (!lander_) return scene;
  const YUp px{kViewportH};
  auto& out = scene.shapes;

  for (size_t i = 0; i + 1 < chunk_x_.size(); ++i) {
    const double x1 = chunk_x_[i] * kScale, x2 = chunk_x_[i + 1] * kScale;
    out.push_back(polygon({px(x1, smooth_y_[i] * kScale), px(x2, smooth_y_[i + 1] * kScale),
                           px(x2, kH * kScale), px(x1, kH * kScale)},
                          {0, 0, 0}));
  }

  for (const auto& p : particles_) {
    auto channel = [](double v) { return static_cast<uint8_t>(std::max(0.2, v) * 255); };
    const Rgb c{channel(0.15 + p.ttl), channel(0.5 * p.ttl), channel(0.5 * p.ttl)};
    out.push_back(circle(px(p.x * kScale, p.y * kScale), 2, c));
  }

  const Rgb fill{128, 102, 230}, edge{77, 77, 128};
  for (const b2Body* body : {lander_, legs_[0], legs_[1]}) {
    for (const b2Fixture* f = body->GetFixtureList(); f; f = f->GetNext()) {
      const auto* poly = static_cast<const b2PolygonShape*>(f->GetShape());
      std::vector<Point> path;
      for (int i = 0; i < poly->m_count; ++i) {
        const b2Vec2 v = b2Mul(body->GetTransform(), poly->m_vertices[i]);
        path.push_back(px(v.x * kScale, v.y * kScale));
      }
      out.push_back(polygon(path, fill));
      path.push_back(path.front());
      out.push_back(polyline(path, edge, 1));
    }
  }

  for (double x : {helipad_x1_ * kScale, helipad_x2_ * kScale}) {
    const double flagy1 = helipad_y_ * kScale, flagy2 = flagy1 + 50;
    out.push_back(polyline({px(x, flagy1), px(x, flagy2)}, {255, 255, 255}, 1));
    out.push_back(
        polygon({px(x, flagy2), px(x, flagy2 - 10), px(x + 25, flagy2 - 5)}, {204, 204, 0}));
  }
  return scene;
}

}  // namespace meadow::envs
