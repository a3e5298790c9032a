// Scene -> Frame with Cairo. Shapes are drawn in order over the background, antialiased.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "meadow/env.hpp"
#include "meadow/error.hpp"
#include "meadow/render.hpp"
#include "render/cairo_handles.hpp"

namespace meadow {

namespace {

using render_detail::Canvas;

const char* kind_name(Shape::Kind k) {
  switch (k) {
    case Shape::Kind::Polygon:
      return "polygon";
    case Shape::Kind::Circle:
      return "circle";
    case Shape::Kind::Polyline:
      return "polyline";
    case Shape::Kind::Rect:
      return "rect";
    case Shape::Kind::Text:
      return "text";
  }
  return "shape";
}

void need_points(const Shape& s, size_t n, size_t index) {
  if (s.points.size() < n)
    throw Error("render: " + std::string(kind_name(s.kind)) + " (shape " + std::to_string(index) +
                ") needs at least " + std::to_string(n) + " point" + (n == 1 ? "" : "s") +
                ", has " + std::to_string(s.points.size()));
}

// Scenes port pygame drawing, where a 1-px line at integer y fills pixel row y; in Cairo's
// coordinates (pixel edges) that line would straddle two rows as a grey smear. So horizontal
// and vertical strokes of odd width are moved onto pixel centres (floor + 0.5), as pygame
// draws them; slanted ones are antialiased either way and stay where they are.
bool odd_width(double w) {
  return w > 0 && std::fmod(w, 2.0) == 1.0;
}

void snap_straight_line(Point& a, Point& b) {
  if (a.y == b.y) a.y = b.y = std::floor(a.y) + 0.5;
  if (a.x == b.x) a.x = b.x = std::floor(a.x) + 0.5;
}

void set_color(cairo_t* cr, Rgb c) {
  cairo_set_source_rgb(cr, c.r / 255.0, c.g / 255.0, c.b / 255.0);
}

// Fills or strokes the current path as the shape asks.
void paint_path(cairo_t* cr, const Shape& s) {
  if (s.filled) {
    cairo_fill(cr);
  } else {
    cairo_set_line_width(cr, s.line_width);
    cairo_stroke(cr);
  }
}

void draw_shape(cairo_t* cr, const Shape& s, size_t index) {
  set_color(cr, s.color);
  switch (s.kind) {
    case Shape::Kind::Polygon:
      need_points(s, 2, index);
      cairo_move_to(cr, s.points[0].x, s.points[0].y);
      for (size_t i = 1; i < s.points.size(); ++i) cairo_line_to(cr, s.points[i].x, s.points[i].y);
      cairo_close_path(cr);
      paint_path(cr, s);
      break;
    case Shape::Kind::Circle:
      need_points(s, 1, index);
      cairo_new_sub_path(cr);
      cairo_arc(cr, s.points[0].x, s.points[0].y, std::max(0.0, s.radius), 0, 2 * M_PI);
      paint_path(cr, s);
      break;
    case Shape::Kind::Polyline: {
      need_points(s, 2, index);
      std::vector<Point> pts = s.points;
      if (pts.size() == 2 && odd_width(s.line_width)) snap_straight_line(pts[0], pts[1]);
      cairo_move_to(cr, pts[0].x, pts[0].y);
      for (size_t i = 1; i < pts.size(); ++i) cairo_line_to(cr, pts[i].x, pts[i].y);
      cairo_set_line_width(cr, s.line_width);  // a polyline is always stroked
      cairo_stroke(cr);
      break;
    }
    case Shape::Kind::Rect: {
      need_points(s, 1, index);
      Point p = s.points[0];
      if (!s.filled && odd_width(s.line_width)) {  // outline through pixel centres
        p = {std::floor(p.x) + 0.5, std::floor(p.y) + 0.5};
      }
      cairo_rectangle(cr, p.x, p.y, s.w, s.h);
      paint_path(cr, s);
      break;
    }
    case Shape::Kind::Text: {
      need_points(s, 1, index);
      render_detail::select_font(cr, s.font_size);
      cairo_font_extents_t fe;
      cairo_font_extents(cr, &fe);
      // Cairo places text by its baseline; the scene gives the top-left corner.
      cairo_move_to(cr, s.points[0].x, s.points[0].y + fe.ascent);
      cairo_show_text(cr, s.text.c_str());
      cairo_new_path(cr);
      break;
    }
  }
}

}  // namespace

Frame rasterize(const Scene& scene) {
  Canvas c = render_detail::make_canvas(scene.width, scene.height);
  cairo_t* cr = c.cr.get();
  cairo_set_antialias(cr, CAIRO_ANTIALIAS_DEFAULT);
  cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
  set_color(cr, scene.background);
  cairo_paint(cr);
  for (size_t i = 0; i < scene.shapes.size(); ++i) draw_shape(cr, scene.shapes[i], i);
  if (cairo_status(cr) != CAIRO_STATUS_SUCCESS)
    throw Error(std::string("render: Cairo failed: ") + cairo_status_to_string(cairo_status(cr)));

  Frame f;
  f.width = scene.width;
  f.height = scene.height;
  f.rgb.resize(static_cast<size_t>(f.width) * f.height * 3);
  render_detail::copy_pixels(c.surface.get(), f.width, f.height, f.rgb.data());
  return f;
}

Frame render(const Env& env) {
  return rasterize(env.scene());
}

}  // namespace meadow
