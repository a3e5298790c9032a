#include "envs/scene_shapes.hpp"

#include "envs/scene_util.hpp"

#include <cmath>
#include <numbers>
#include <utility>

namespace meadow::envs {

Shape rect_shape(double x, double y, double w, double h, Rgb color, bool filled,
                 double line_width) {
  Shape s;
  s.kind = Shape::Kind::Rect;
  s.points = {{x, y}};
  s.w = w;
  s.h = h;
  s.color = color;
  s.filled = filled;
  s.line_width = line_width;
  return s;
}

Shape circle_shape(double cx, double cy, double radius, Rgb color, bool filled, double line_width) {
  Shape s = circle({cx, cy}, radius, color, filled);
  s.line_width = line_width;
  return s;
}

Shape polygon_shape(std::vector<Point> points, Rgb color, bool filled, double line_width) {
  Shape s = polygon(std::move(points), color, filled);
  s.line_width = line_width;
  return s;
}

Shape polyline_shape(std::vector<Point> points, Rgb color, double line_width) {
  return polyline(std::move(points), color, line_width);
}

Shape text_shape(double x, double y, std::string text, Rgb color, double font_size) {
  Shape s;
  s.kind = Shape::Kind::Text;
  s.points = {{x, y}};
  s.text = std::move(text);
  s.color = color;
  s.font_size = font_size;
  return s;
}

Shape ellipse_shape(double cx, double cy, double rx, double ry, Rgb color, bool filled) {
  std::vector<Point> pts;
  constexpr int n = 24;
  for (int i = 0; i < n; ++i) {
    const double a = 2 * std::numbers::pi * i / n;
    pts.push_back({cx + rx * std::cos(a), cy + ry * std::sin(a)});
  }
  return polygon_shape(std::move(pts), color, filled);
}

Rgb blend(Rgb a, Rgb b, double t) {
  auto mix = [t](uint8_t x, uint8_t y) {
    return static_cast<uint8_t>(std::lround(x * (1 - t) + y * t));
  };
  return {mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b)};
}

}  // namespace meadow::envs
