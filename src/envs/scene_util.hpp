// Small helpers for building Scenes and Spaces in env files.
#pragma once

#include <cmath>
#include <vector>

#include "meadow/env.hpp"
#include "meadow/scene.hpp"

namespace meadow::envs {

// Gymnasium draws with y up and flips the image; this maps its coordinates to ours.
struct YUp {
  double height;
  Point operator()(double x, double y) const { return {x, height - y}; }
};

// pygame.math.Vector2.rotate_rad: counter-clockwise by `angle` in y-up coordinates.
inline Point rotate(Point p, double angle) {
  const double c = std::cos(angle), s = std::sin(angle);
  return {p.x * c - p.y * s, p.x * s + p.y * c};
}

inline Shape polygon(std::vector<Point> pts, Rgb color, bool filled = true) {
  Shape s;
  s.kind = Shape::Kind::Polygon;
  s.points = std::move(pts);
  s.color = color;
  s.filled = filled;
  return s;
}

inline Shape polyline(std::vector<Point> pts, Rgb color, double width) {
  Shape s;
  s.kind = Shape::Kind::Polyline;
  s.points = std::move(pts);
  s.color = color;
  s.filled = false;
  s.line_width = width;
  return s;
}

inline Shape circle(Point centre, double radius, Rgb color, bool filled = true) {
  Shape s;
  s.kind = Shape::Kind::Circle;
  s.points = {centre};
  s.radius = radius;
  s.color = color;
  s.filled = filled;
  return s;
}

inline Space discrete_space(int64_t n, int64_t start = 0) {
  Space s;
  s.kind = Space::Kind::Discrete;
  s.n = n;
  s.start = start;
  s.dtype = "int64";
  return s;
}

// A 1-D float32 Box; bounds are rounded to float32 as np.array(..., dtype=np.float32) does.
inline Space box_space(std::vector<double> low, std::vector<double> high) {
  for (double& v : low) v = static_cast<float>(v);
  for (double& v : high) v = static_cast<float>(v);
  Space s;
  s.kind = Space::Kind::Box;
  s.shape = {static_cast<int64_t>(low.size())};
  s.low = std::move(low);
  s.high = std::move(high);
  s.dtype = "float32";
  return s;
}

}  // namespace meadow::envs
