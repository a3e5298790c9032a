// FrozenLake's picture, laid out like Gymnasium's render: every cell is ice, holes, the goal
// and the start stool drawn over it, a thin blue-grey border per cell, then the elf (or a
// cracked hole when the agent fell in).
#include <algorithm>

#include "envs/frozen_lake.hpp"
#include "envs/scene_shapes.hpp"
#include "envs/toy_text_sprites.hpp"

namespace meadow::envs {
namespace {

const Rgb kIce{214, 236, 250}, kIceShine{245, 251, 255}, kWater{28, 70, 130},
    kWaterDeep{16, 40, 85}, kRim{160, 200, 230}, kBorder{180, 200, 230};

void draw_ice(std::vector<Shape>& out, double x, double y, double w, double h) {
  out.push_back(rect_shape(x, y, w, h, kIce));
  out.push_back(
      polyline_shape({{x + 0.15 * w, y + 0.30 * h}, {x + 0.35 * w, y + 0.18 * h}}, kIceShine, 2));
  out.push_back(
      polyline_shape({{x + 0.60 * w, y + 0.80 * h}, {x + 0.85 * w, y + 0.66 * h}}, kIceShine, 2));
}

void draw_hole(std::vector<Shape>& out, double x, double y, double w, double h, bool cracked) {
  out.push_back(ellipse_shape(x + 0.5 * w, y + 0.55 * h, 0.42 * w, 0.34 * h, kRim));
  out.push_back(ellipse_shape(x + 0.5 * w, y + 0.56 * h, 0.36 * w, 0.28 * h, kWater));
  out.push_back(ellipse_shape(x + 0.5 * w, y + 0.60 * h, 0.22 * w, 0.15 * h, kWaterDeep));
  if (cracked) {  // the ice around the hole broke under the elf
    const Rgb crack{70, 90, 120};
    out.push_back(polyline_shape(
        {{x + 0.1 * w, y + 0.1 * h}, {x + 0.25 * w, y + 0.25 * h}, {x + 0.2 * w, y + 0.4 * h}},
        crack, 2));
    out.push_back(polyline_shape(
        {{x + 0.9 * w, y + 0.12 * h}, {x + 0.75 * w, y + 0.28 * h}, {x + 0.82 * w, y + 0.42 * h}},
        crack, 2));
    out.push_back(
        polyline_shape({{x + 0.5 * w, y + 0.05 * h}, {x + 0.48 * w, y + 0.22 * h}}, crack, 2));
  }
}

// The goal: a wrapped present.
void draw_goal(std::vector<Shape>& out, double x, double y, double w, double h) {
  const Rgb box{205, 40, 50}, ribbon{250, 210, 40};
  out.push_back(rect_shape(x + 0.22 * w, y + 0.38 * h, 0.56 * w, 0.46 * h, box));
  out.push_back(rect_shape(x + 0.18 * w, y + 0.30 * h, 0.64 * w, 0.12 * h, box));
  out.push_back(rect_shape(x + 0.46 * w, y + 0.30 * h, 0.08 * w, 0.54 * h, ribbon));
  out.push_back(rect_shape(x + 0.18 * w, y + 0.33 * h, 0.64 * w, 0.06 * h, ribbon));
  out.push_back(polygon_shape(
      {{x + 0.5 * w, y + 0.30 * h}, {x + 0.32 * w, y + 0.16 * h}, {x + 0.34 * w, y + 0.30 * h}},
      ribbon));
  out.push_back(polygon_shape(
      {{x + 0.5 * w, y + 0.30 * h}, {x + 0.68 * w, y + 0.16 * h}, {x + 0.66 * w, y + 0.30 * h}},
      ribbon));
}

}  // namespace

Scene frozen_lake_scene(const LakeMap& desc, int64_t state, std::optional<int64_t> last_action) {
  const int nrow = static_cast<int>(desc.size());
  const int ncol = nrow ? static_cast<int>(desc[0].size()) : 0;
  Scene scene;
  scene.width = std::min(64 * ncol, 512);
  scene.height = std::min(64 * nrow, 512);
  scene.background = kIce;
  const double cw = scene.width / std::max(ncol, 1), ch = scene.height / std::max(nrow, 1);
  auto& out = scene.shapes;
  for (int r = 0; r < nrow; ++r)
    for (int c = 0; c < ncol; ++c) {
      const double x = c * cw, y = r * ch;
      draw_ice(out, x, y, cw, ch);
      const char cell = desc[r][c];
      if (cell == 'H') draw_hole(out, x, y, cw, ch, false);
      if (cell == 'G') draw_goal(out, x, y, cw, ch);
      if (cell == 'S') draw_stool(out, x, y, cw, ch);
      out.push_back(rect_shape(x, y, cw, ch, kBorder, false, 1));
    }
  const int r = static_cast<int>(state / std::max(ncol, 1)),
            c = static_cast<int>(state % std::max(ncol, 1));
  if (r < nrow && c < ncol) {
    if (desc[r][c] == 'H') {
      draw_hole(out, c * cw, r * ch, cw, ch, true);
    } else {
      // Gymnasium's elf images are indexed by action: LEFT, DOWN, RIGHT, UP; DOWN before
      // the first step.
      const Facing facing = static_cast<Facing>(last_action.value_or(1));
      draw_elf(out, c * cw, r * ch, cw, ch, facing);
    }
  }
  return scene;
}

}  // namespace meadow::envs
