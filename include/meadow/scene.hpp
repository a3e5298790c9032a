// A picture described as plain drawing primitives, in pixel coordinates with the origin at
// the top-left. Environments describe what they look like (no drawing library needed);
// src/render turns a Scene into pixels with Cairo (meadow/render.hpp).
//
// Stability: everything here is stable (kept across releases; fields may be added) unless
// marked "Experimental:", which may change or go.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace meadow {

struct Rgb {
  uint8_t r = 0, g = 0, b = 0;  // 0..255 each
};

struct Point {
  double x = 0, y = 0;  // pixels from the left and from the top
};

// One drawing primitive; which fields count depends on `kind`.

struct Shape {
  enum class Kind { Polygon, Circle, Polyline, Rect, Text };
  Kind kind = Kind::Polygon;
  std::vector<Point> points;  // Polygon / Polyline vertices; Circle centre; Rect and Text
                              // top-left (Rect uses points[0] and size)
  double radius = 0;          // Circle
  double w = 0, h = 0;        // Rect size
  bool filled = true;         // fill with `color`, else stroke with `color`
  Rgb color;                  // fill or stroke colour (Text: the glyphs')
  double line_width = 1;      // for outlines and polylines, pixels
  std::string text;           // Text: UTF-8, drawn with its top-left at points[0]
  double font_size = 12;      // Text: pixels
};

// A picture: a canvas and the shapes on it.
struct Scene {
  int width = 0, height = 0;      // canvas size, pixels
  Rgb background{255, 255, 255};  // what the canvas starts as
  std::vector<Shape> shapes;      // drawn in order
};

// An RGB image, 3 bytes per pixel, rows top to bottom.
struct Frame {
  int width = 0, height = 0;  // pixels
  std::vector<uint8_t> rgb;   // width * height * 3 bytes: r, g, b of each pixel, row by row
};

}  // namespace meadow
