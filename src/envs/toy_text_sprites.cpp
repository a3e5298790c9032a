#include "envs/toy_text_sprites.hpp"

#include "envs/scene_shapes.hpp"

namespace meadow::envs {

void draw_elf(std::vector<Shape>& out, double x, double y, double w, double h, Facing facing) {
  const Rgb tunic{46, 139, 87}, skin{250, 214, 170}, hat{200, 30, 45}, boots{90, 60, 30};
  const double cx = x + w / 2;
  // Legs and boots, body, head, pointed hat: a small figure about 80% of the cell high.
  out.push_back(rect_shape(cx - 0.16 * w, y + 0.74 * h, 0.12 * w, 0.14 * h, boots));
  out.push_back(rect_shape(cx + 0.04 * w, y + 0.74 * h, 0.12 * w, 0.14 * h, boots));
  out.push_back(polygon_shape({{cx - 0.22 * w, y + 0.76 * h},
                               {cx - 0.14 * w, y + 0.45 * h},
                               {cx + 0.14 * w, y + 0.45 * h},
                               {cx + 0.22 * w, y + 0.76 * h}},
                              tunic));
  out.push_back(rect_shape(cx - 0.22 * w, y + 0.58 * h, 0.44 * w, 0.05 * h, {120, 80, 30}));
  out.push_back(circle_shape(cx, y + 0.36 * h, 0.14 * w, skin));
  out.push_back(polygon_shape(
      {{cx - 0.17 * w, y + 0.30 * h}, {cx + 0.17 * w, y + 0.30 * h}, {cx, y + 0.06 * h}}, hat));
  out.push_back(circle_shape(cx, y + 0.06 * h, 0.04 * w, {255, 255, 255}));
  // Eyes show which way the elf last moved (none when walking away, Up).
  const Rgb eye{30, 30, 30};
  const double ey = y + 0.37 * h, r = 0.025 * w;
  switch (facing) {
    case Facing::Down:
      out.push_back(circle_shape(cx - 0.05 * w, ey, r, eye));
      out.push_back(circle_shape(cx + 0.05 * w, ey, r, eye));
      break;
    case Facing::Left:
      out.push_back(circle_shape(cx - 0.08 * w, ey, r, eye));
      break;
    case Facing::Right:
      out.push_back(circle_shape(cx + 0.08 * w, ey, r, eye));
      break;
    case Facing::Up:
      out.push_back(rect_shape(cx - 0.12 * w, y + 0.40 * h, 0.24 * w, 0.06 * h, {170, 120, 60}));
      break;
  }
}

void draw_stool(std::vector<Shape>& out, double x, double y, double w, double h) {
  const Rgb wood{150, 100, 50}, dark{100, 65, 30};
  out.push_back(ellipse_shape(x + 0.5 * w, y + 0.45 * h, 0.30 * w, 0.09 * h, wood));
  out.push_back(ellipse_shape(x + 0.5 * w, y + 0.45 * h, 0.30 * w, 0.09 * h, dark, false));
  out.push_back(rect_shape(x + 0.26 * w, y + 0.50 * h, 0.06 * w, 0.32 * h, dark));
  out.push_back(rect_shape(x + 0.68 * w, y + 0.50 * h, 0.06 * w, 0.32 * h, dark));
  out.push_back(rect_shape(x + 0.47 * w, y + 0.52 * h, 0.06 * w, 0.34 * h, wood));
}

}  // namespace meadow::envs
