// Rasterizing hand-built scenes: colours at points we know, and the errors for bad scenes.
#include <gtest/gtest.h>

#include "meadow/error.hpp"
#include "meadow/render.hpp"

using meadow::Frame;
using meadow::Point;
using meadow::Rgb;
using meadow::Scene;
using meadow::Shape;

namespace {

Rgb pixel(const Frame& f, int x, int y) {
  const uint8_t* p = f.rgb.data() + (static_cast<size_t>(y) * f.width + x) * 3;
  return {p[0], p[1], p[2]};
}

void expect_rgb(const Frame& f, int x, int y, Rgb want) {
  const Rgb got = pixel(f, x, y);
  EXPECT_EQ(got.r, want.r) << "at " << x << "," << y;
  EXPECT_EQ(got.g, want.g) << "at " << x << "," << y;
  EXPECT_EQ(got.b, want.b) << "at " << x << "," << y;
}

Shape polygon(std::vector<Point> pts, Rgb c) {
  Shape s;
  s.kind = Shape::Kind::Polygon;
  s.points = std::move(pts);
  s.color = c;
  return s;
}

}  // namespace

TEST(Rasterize, DrawsShapesInOrderAtTheirPixels) {
  Scene sc;
  sc.width = 120;
  sc.height = 80;
  sc.background = {10, 20, 30};
  sc.shapes.push_back(polygon({{10, 10}, {50, 10}, {50, 40}, {10, 40}}, {200, 0, 0}));
  Shape circle;
  circle.kind = Shape::Kind::Circle;
  circle.points = {{90, 40}};
  circle.radius = 15;
  circle.color = {0, 200, 0};
  sc.shapes.push_back(circle);
  Shape line;
  line.kind = Shape::Kind::Polyline;
  line.points = {{0, 70}, {119, 70}};  // like pygame: a 1-px line at y = 70 fills row 70
  line.line_width = 1;
  line.color = {255, 255, 0};
  sc.shapes.push_back(line);
  Shape vline = line;  // a fractional x lands on the pixel it falls in, still crisp
  vline.points = {{100.3, 60}, {100.3, 79}};
  vline.color = {255, 0, 255};
  sc.shapes.push_back(vline);
  Shape outline;  // an unfilled rect: border drawn, inside left alone
  outline.kind = Shape::Kind::Rect;
  outline.points = {{60, 5}};
  outline.w = 10;
  outline.h = 10;
  outline.filled = false;
  outline.color = {0, 0, 255};
  sc.shapes.push_back(outline);
  // Drawn last, overlapping the red square: order matters.
  sc.shapes.push_back(polygon({{30, 20}, {45, 20}, {45, 30}, {30, 30}}, {255, 255, 255}));

  const Frame f = meadow::rasterize(sc);
  ASSERT_EQ(f.width, 120);
  ASSERT_EQ(f.height, 80);
  ASSERT_EQ(f.rgb.size(), 120u * 80 * 3);
  expect_rgb(f, 2, 2, {10, 20, 30});    // background
  expect_rgb(f, 15, 15, {200, 0, 0});   // inside the polygon
  expect_rgb(f, 49, 39, {200, 0, 0});   // its last pixel (edges at integer coordinates are exact)
  expect_rgb(f, 50, 40, {10, 20, 30});  // just outside
  expect_rgb(f, 35, 25, {255, 255, 255});
  expect_rgb(f, 90, 40, {0, 200, 0});   // circle centre
  expect_rgb(f, 90, 27, {0, 200, 0});   // inside, near the top
  expect_rgb(f, 90, 22, {10, 20, 30});  // outside
  expect_rgb(f, 5, 70, {255, 255, 0});  // line
  expect_rgb(f, 5, 72, {10, 20, 30});
  expect_rgb(f, 100, 62, {255, 0, 255});
  expect_rgb(f, 99, 62, {10, 20, 30});
  expect_rgb(f, 101, 62, {10, 20, 30});
  expect_rgb(f, 60, 10, {0, 0, 255});   // outline edge
  expect_rgb(f, 65, 10, {10, 20, 30});  // outline inside
}

TEST(Rasterize, AntialiasesSlantedEdges) {
  Scene sc;
  sc.width = 40;
  sc.height = 40;
  sc.background = {0, 0, 0};
  sc.shapes.push_back(polygon({{0, 0}, {40, 0}, {0, 40}}, {255, 255, 255}));
  const Frame f = meadow::rasterize(sc);
  // Pixels the diagonal cuts in half are grey, not black or white.
  const Rgb edge = pixel(f, 20, 19);
  EXPECT_GT(edge.r, 60);
  EXPECT_LT(edge.r, 200);
}

TEST(Rasterize, DrawsTextBelowItsTopLeft) {
  Scene sc;
  sc.width = 100;
  sc.height = 40;
  Shape t;
  t.kind = Shape::Kind::Text;
  t.points = {{5, 10}};
  t.text = "HHHH";
  t.font_size = 20;
  t.color = {0, 0, 0};
  sc.shapes.push_back(t);
  const Frame f = meadow::rasterize(sc);
  int dark_above = 0, dark_inside = 0;
  for (int y = 0; y < 40; ++y)
    for (int x = 0; x < 100; ++x)
      if (pixel(f, x, y).r < 128) (y < 10 ? dark_above : dark_inside)++;
  EXPECT_EQ(dark_above, 0);
  EXPECT_GT(dark_inside, 50);
}

TEST(Rasterize, RejectsBadScenes) {
  Scene empty;
  EXPECT_THROW(meadow::rasterize(empty), meadow::Error);
  Scene sc;
  sc.width = 10;
  sc.height = 10;
  Shape c;
  c.kind = Shape::Kind::Circle;  // no centre
  sc.shapes.push_back(c);
  try {
    meadow::rasterize(sc);
    FAIL() << "expected meadow::Error";
  } catch (const meadow::Error& e) {
    EXPECT_NE(std::string(e.what()).find("circle"), std::string::npos) << e.what();
  }
}
