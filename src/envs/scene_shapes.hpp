// Small constructors for Scene shapes, so env pictures read as a list of drawing calls.
#pragma once

#include <string>
#include <vector>

#include "meadow/scene.hpp"

namespace meadow::envs {

Shape rect_shape(double x, double y, double w, double h, Rgb color, bool filled = true,
                 double line_width = 1);
Shape circle_shape(double cx, double cy, double radius, Rgb color, bool filled = true,
                   double line_width = 1);
Shape polygon_shape(std::vector<Point> points, Rgb color, bool filled = true,
                    double line_width = 1);
Shape polyline_shape(std::vector<Point> points, Rgb color, double line_width = 1);
Shape text_shape(double x, double y, std::string text, Rgb color, double font_size);

// An axis-aligned ellipse as a polygon (Scene has circles only).
Shape ellipse_shape(double cx, double cy, double rx, double ry, Rgb color, bool filled = true);

// a*(1-t) + b*t per channel: stands in for Gymnasium's alpha-blended sprites.
Rgb blend(Rgb a, Rgb b, double t);

}  // namespace meadow::envs
