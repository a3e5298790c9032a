// A picture described as plain drawing primitives, in pixel coordinates with the origin at
// the top-left. Environments describe what they look like (no drawing library needed);
// src/render turns a Scene into pixels with Cairo.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace meadow {

struct Rgb {
  uint8_t r = 0, g = 0, b = 0;
};

struct Point {
  double x = 0, y = 0;
};

struct Shape {
  enum class Kind { Polygon, Circle, Polyline, Rect, Text };
  Kind kind = Kind::Polygon;
  std::vector<Point> points;  // Polygon / Polyline vertices; Circle centre; Rect and Text
                              // top-left (Rect uses points[0] and size)
  double radius = 0;          // Circle
  double w = 0, h = 0;        // Rect size
  bool filled = true;         // fill with `color`, else stroke with `color`
  Rgb color;
  double line_width = 1;  // for outlines and polylines
  std::string text;       // Text: UTF-8, drawn with its top-left at points[0]
  double font_size = 12;
};

struct Scene {
  int width = 0, height = 0;
  Rgb background{255, 255, 255};
  std::vector<Shape> shapes;  // drawn in order
};

// An RGB image, 3 bytes per pixel, rows top to bottom.
struct Frame {
  int width = 0, height = 0;
  std::vector<uint8_t> rgb;
};

}  // namespace meadow
