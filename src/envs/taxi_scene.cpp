// Taxi's picture in Gymnasium's layout: the 7 x 11 character map drawn cell by cell (road
// background, wall medians for '|' and '-'), the four depots as half-transparent coloured
// cells shifted 10 px down, the passenger, the destination hotel half a cell up, and the taxi
// facing its last move.
#include <array>

#include "envs/scene_shapes.hpp"
#include "envs/taxi.hpp"

namespace meadow::envs {
namespace {

constexpr double kCw = 550.0 / 11, kCh = 350.0 / 7;
constexpr const char* kMap[7] = {
    "+---------+", "|R: | : :G|", "| : | : : |", "| : : : : |",
    "| | : | : |", "|Y| : |B: |", "+---------+",
};
constexpr std::array<std::array<int, 2>, 4> kLocs{{{0, 0}, {0, 4}, {4, 0}, {4, 3}}};
const Rgb kLocColors[4] = {{255, 0, 0}, {0, 255, 0}, {255, 255, 0}, {0, 0, 255}};
const char* kLocNames[4] = {"R", "G", "Y", "B"};
const Rgb kRoad{222, 222, 214}, kRoadLine{200, 200, 192}, kMedian{64, 110, 60},
    kMedianEdge{40, 70, 38};

Point surf_loc(int row, int col) {
  return {(col * 2 + 1) * kCw, (row + 1) * kCh};
}

void draw_passenger(std::vector<Shape>& out, Point p) {
  const double cx = p.x + kCw / 2;
  out.push_back(circle_shape(cx, p.y + 0.25 * kCh, 0.11 * kCw, {240, 200, 160}));
  out.push_back(polygon_shape({{cx - 0.16 * kCw, p.y + 0.75 * kCh},
                               {cx - 0.12 * kCw, p.y + 0.38 * kCh},
                               {cx + 0.12 * kCw, p.y + 0.38 * kCh},
                               {cx + 0.16 * kCw, p.y + 0.75 * kCh}},
                              {70, 90, 170}));
  out.push_back(rect_shape(cx - 0.1 * kCw, p.y + 0.75 * kCh, 0.07 * kCw, 0.15 * kCh, {40, 40, 50}));
  out.push_back(
      rect_shape(cx + 0.03 * kCw, p.y + 0.75 * kCh, 0.07 * kCw, 0.15 * kCh, {40, 40, 50}));
}

// The destination: a small hotel (Gymnasium blits it at alpha 170, so its colours are muted).
void draw_hotel(std::vector<Shape>& out, Point p) {
  const Rgb wall = blend(kRoad, {170, 80, 60}, 0.67), roof = blend(kRoad, {90, 40, 40}, 0.67),
            window = blend(kRoad, {250, 230, 120}, 0.67);
  out.push_back(rect_shape(p.x + 0.15 * kCw, p.y + 0.3 * kCh, 0.7 * kCw, 0.65 * kCh, wall));
  out.push_back(polygon_shape({{p.x + 0.08 * kCw, p.y + 0.32 * kCh},
                               {p.x + 0.5 * kCw, p.y + 0.08 * kCh},
                               {p.x + 0.92 * kCw, p.y + 0.32 * kCh}},
                              roof));
  for (double wy : {0.42, 0.62})
    for (double wx : {0.25, 0.6})
      out.push_back(rect_shape(p.x + wx * kCw, p.y + wy * kCh, 0.15 * kCw, 0.12 * kCh, window));
}

// The cab seen from the front (0, moving south), rear (1), right (2) or left (3).
void draw_taxi(std::vector<Shape>& out, Point p, int orientation) {
  const Rgb body{250, 200, 20}, dark{40, 40, 40}, glass{150, 200, 230}, light{255, 250, 200};
  const bool side = orientation >= 2;
  if (side) {
    const double x = p.x, y = p.y;
    out.push_back(rect_shape(x + 0.06 * kCw, y + 0.42 * kCh, 0.88 * kCw, 0.3 * kCh, body));
    out.push_back(rect_shape(x + 0.26 * kCw, y + 0.22 * kCh, 0.48 * kCw, 0.22 * kCh, body));
    out.push_back(rect_shape(x + 0.31 * kCw, y + 0.26 * kCh, 0.17 * kCw, 0.15 * kCh, glass));
    out.push_back(rect_shape(x + 0.52 * kCw, y + 0.26 * kCh, 0.17 * kCw, 0.15 * kCh, glass));
    out.push_back(circle_shape(x + 0.27 * kCw, y + 0.74 * kCh, 0.1 * kCw, dark));
    out.push_back(circle_shape(x + 0.73 * kCw, y + 0.74 * kCh, 0.1 * kCw, dark));
    const double hx = orientation == 2 ? x + 0.88 * kCw : x + 0.06 * kCw;
    out.push_back(rect_shape(hx, y + 0.46 * kCh, 0.06 * kCw, 0.08 * kCh, light));
  } else {
    const double x = p.x, y = p.y;
    out.push_back(rect_shape(x + 0.14 * kCw, y + 0.3 * kCh, 0.72 * kCw, 0.45 * kCh, body));
    out.push_back(rect_shape(x + 0.24 * kCw, y + 0.14 * kCh, 0.52 * kCw, 0.2 * kCh, body));
    out.push_back(rect_shape(x + 0.28 * kCw, y + 0.18 * kCh, 0.44 * kCw, 0.14 * kCh, glass));
    out.push_back(rect_shape(x + 0.18 * kCw, y + 0.75 * kCh, 0.14 * kCw, 0.12 * kCh, dark));
    out.push_back(rect_shape(x + 0.68 * kCw, y + 0.75 * kCh, 0.14 * kCw, 0.12 * kCh, dark));
    const Rgb lamp = orientation == 0 ? light : Rgb{220, 40, 40};
    out.push_back(circle_shape(x + 0.24 * kCw, y + 0.55 * kCh, 0.05 * kCw, lamp));
    out.push_back(circle_shape(x + 0.76 * kCw, y + 0.55 * kCh, 0.05 * kCw, lamp));
  }
  out.push_back(rect_shape(p.x + 0.4 * kCw, p.y + (side ? 0.14 : 0.06) * kCh, 0.2 * kCw, 0.08 * kCh,
                           dark));  // roof sign
}

}  // namespace

Scene taxi_scene(int64_t state, int taxi_orientation) {
  Scene scene;
  scene.width = 550;
  scene.height = 350;
  scene.background = kRoad;
  auto& out = scene.shapes;
  for (int y = 0; y < 7; ++y)
    for (int x = 0; x < 11; ++x) {
      const double px = x * kCw, py = y * kCh;
      out.push_back(rect_shape(px, py, kCw, kCh, kRoadLine, false, 1));
      const char c = kMap[y][x];
      if (c == '|') {  // a vertical median, rounded off where it starts and ends
        const bool top = y == 0 || kMap[y - 1][x] != '|', bottom = y == 6 || kMap[y + 1][x] != '|';
        out.push_back(rect_shape(px + 0.3 * kCw, py + (top ? 0.1 : 0) * kCh, 0.4 * kCw,
                                 (1 - (top ? 0.1 : 0) - (bottom ? 0.1 : 0)) * kCh, kMedian));
        out.push_back(rect_shape(px + 0.3 * kCw, py + (top ? 0.1 : 0) * kCh, 0.4 * kCw,
                                 (1 - (top ? 0.1 : 0) - (bottom ? 0.1 : 0)) * kCh, kMedianEdge,
                                 false, 1));
      } else if (c == '-') {
        const bool first = x == 0 || kMap[y][x - 1] != '-', last = x == 10 || kMap[y][x + 1] != '-';
        out.push_back(rect_shape(px + (first ? 0.1 : 0) * kCw, py + 0.3 * kCh,
                                 (1 - (first ? 0.1 : 0) - (last ? 0.1 : 0)) * kCw, 0.4 * kCh,
                                 kMedian));
      } else if (c == '+') {
        out.push_back(rect_shape(px + 0.3 * kCw, py + 0.3 * kCh, 0.4 * kCw, 0.4 * kCh, kMedian));
      }
    }
  for (int i = 0; i < 4; ++i) {
    const Point p = surf_loc(kLocs[i][0], kLocs[i][1]);
    out.push_back(rect_shape(p.x, p.y + 10, kCw, kCh, blend(kRoad, kLocColors[i], 0.5)));
    out.push_back(text_shape(p.x + 3, p.y + 12, kLocNames[i], {30, 30, 30}, 12));
  }
  const TaxiState t = taxi_decode(state);
  if (t.passenger < 4) draw_passenger(out, surf_loc(kLocs[t.passenger][0], kLocs[t.passenger][1]));
  const Point dest = surf_loc(kLocs[t.destination][0], kLocs[t.destination][1]);
  const Point hotel{dest.x, dest.y - static_cast<double>(static_cast<int>(kCh) / 2)};
  const Point taxi = surf_loc(t.row, t.col);
  // Same overlap order as Gymnasium: the lower of the two is drawn last.
  if (dest.y <= taxi.y) {
    draw_hotel(out, hotel);
    draw_taxi(out, taxi, taxi_orientation);
  } else {
    draw_taxi(out, taxi, taxi_orientation);
    draw_hotel(out, hotel);
  }
  if (t.passenger == 4)  // a passenger aboard shows as a small head in the window
    out.push_back(
        circle_shape(taxi.x + 0.5 * kCw, taxi.y + 0.27 * kCh, 0.06 * kCw, {240, 200, 160}));
  return scene;
}

}  // namespace meadow::envs
