// CliffWalking's picture in Gymnasium's layout: a checkerboard of mountain-grass cells, the
// cliff cells as rock falling away, the cells above the cliff with a rocky edge, the start
// stool, the goal cookie and the elf drawn 10% of a cell higher than its cell.
#include "envs/cliff_walking.hpp"
#include "envs/scene_shapes.hpp"
#include "envs/toy_text_sprites.hpp"

namespace meadow::envs {
namespace {

constexpr double kCell = 60;
const Rgb kGrass[2] = {{122, 168, 96}, {108, 154, 84}};
const Rgb kRock{96, 84, 78}, kRockDark{58, 50, 48}, kChasm{36, 30, 34};

void draw_cliff(std::vector<Shape>& out, double x, double y) {
  out.push_back(rect_shape(x, y, kCell, kCell, kChasm));
  out.push_back(polygon_shape({{x, y},
                               {x + kCell, y},
                               {x + 0.8 * kCell, y + 0.25 * kCell},
                               {x + 0.2 * kCell, y + 0.3 * kCell}},
                              kRock));
  out.push_back(polyline_shape(
      {{x + 0.3 * kCell, y + 0.5 * kCell}, {x + 0.45 * kCell, y + 0.75 * kCell}}, kRockDark, 2));
  out.push_back(polyline_shape(
      {{x + 0.7 * kCell, y + 0.45 * kCell}, {x + 0.6 * kCell, y + 0.8 * kCell}}, kRockDark, 2));
}

void draw_near_cliff(std::vector<Shape>& out, double x, double y) {
  out.push_back(polygon_shape({{x, y + 0.8 * kCell},
                               {x + 0.3 * kCell, y + 0.74 * kCell},
                               {x + 0.65 * kCell, y + 0.82 * kCell},
                               {x + kCell, y + 0.76 * kCell},
                               {x + kCell, y + kCell},
                               {x, y + kCell}},
                              kRock));
}

void draw_cookie(std::vector<Shape>& out, double x, double y) {
  out.push_back(circle_shape(x + 0.5 * kCell, y + 0.5 * kCell, 0.3 * kCell, {205, 150, 80}));
  const Rgb chip{80, 45, 20};
  for (auto [dx, dy] :
       {std::pair{-0.1, -0.12}, {0.12, -0.05}, {-0.05, 0.12}, {0.1, 0.14}, {-0.16, 0.04}})
    out.push_back(circle_shape(x + (0.5 + dx) * kCell, y + (0.5 + dy) * kCell, 0.04 * kCell, chip));
}

}  // namespace

Scene cliff_walking_scene(int64_t state, std::optional<int64_t> last_action) {
  Scene scene;
  scene.width = static_cast<int>(CliffWalking::kCols * kCell);
  scene.height = static_cast<int>(CliffWalking::kRows * kCell);
  scene.background = kGrass[0];
  auto& out = scene.shapes;
  for (int row = 0; row < CliffWalking::kRows; ++row)
    for (int col = 0; col < CliffWalking::kCols; ++col) {
      const double x = col * kCell, y = row * kCell;
      const bool cliff_row = row == CliffWalking::kRows - 1;
      const bool cliff = cliff_row && col >= 1 && col <= CliffWalking::kCols - 2;
      out.push_back(rect_shape(x, y, kCell, kCell, kGrass[(row % 2) ^ (col % 2)]));
      if (cliff) draw_cliff(out, x, y);
      if (row == CliffWalking::kRows - 2 && col >= 1 && col <= CliffWalking::kCols - 2)
        draw_near_cliff(out, x, y);
      if (row * CliffWalking::kCols + col == CliffWalking::kStart)
        draw_stool(out, x, y, kCell, kCell);
      if (row * CliffWalking::kCols + col == CliffWalking::kGoal) draw_cookie(out, x, y);
    }
  const double x = (state % CliffWalking::kCols) * kCell;
  const double y = (state / CliffWalking::kCols) * kCell - 0.1 * kCell;
  // CliffWalking's actions are UP, RIGHT, DOWN, LEFT; the elf faces down before a step.
  constexpr Facing kFacing[4] = {Facing::Up, Facing::Right, Facing::Down, Facing::Left};
  draw_elf(out, x, y, kCell, kCell, kFacing[last_action.value_or(2)]);
  return scene;
}

}  // namespace meadow::envs
