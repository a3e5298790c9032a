// line_plot(): series drawn inside the axes, log axes by decades, and bad input refused.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "meadow/error.hpp"
#include "meadow/render.hpp"
#include "meadow/runtime/plot.hpp"

namespace meadow {
namespace {

PlotSpec two_lines(bool log) {
  PlotSpec s;
  s.title = "t";
  s.log_x = s.log_y = log;
  s.series = {{"a", {8, 16, 32}, {2, 2, 2}, {255, 0, 0}},
              {"b", {8, 16, 32}, {60, 100, 200}, {0, 0, 255}}};
  return s;
}

TEST(LinePlot, PointsLieInsideTheFrameAndTheColoursAreDrawn) {
  for (bool log : {false, true}) {
    const Scene sc = line_plot(two_lines(log));
    int dots = 0;
    for (const Shape& sh : sc.shapes)
      if (sh.kind == Shape::Kind::Circle) {
        ++dots;
        EXPECT_GE(sh.points[0].x, 80);
        EXPECT_LE(sh.points[0].x, sc.width);
        EXPECT_GE(sh.points[0].y, 0);
        EXPECT_LE(sh.points[0].y, sc.height - 60);
      }
    EXPECT_EQ(dots, 6);
    const Frame f = rasterize(sc);
    bool red = false, blue = false;
    for (size_t i = 0; i + 2 < f.rgb.size(); i += 3) {
      red |= f.rgb[i] > 200 && f.rgb[i + 1] < 60 && f.rgb[i + 2] < 60;
      blue |= f.rgb[i] < 60 && f.rgb[i + 1] < 60 && f.rgb[i + 2] > 200;
    }
    EXPECT_TRUE(red && blue);
  }
}

TEST(LinePlot, HigherValuesAreHigherOnTheImage) {
  const Scene sc = line_plot(two_lines(true));
  std::vector<double> ys;
  for (const Shape& sh : sc.shapes)
    if (sh.kind == Shape::Kind::Circle) ys.push_back(sh.points[0].y);
  EXPECT_LT(ys[3], ys[0]);  // b's 60 above a's 2
  EXPECT_LT(ys[5], ys[4]);  // 200 above 100
}

TEST(LinePlot, BadInputIsRefused) {
  PlotSpec s = two_lines(true);
  s.series[0].y[0] = 0;
  EXPECT_THROW(line_plot(s), Error);  // <= 0 on a log axis
  s = two_lines(false);
  s.series[0].y.pop_back();
  EXPECT_THROW(line_plot(s), Error);
  s = two_lines(false);
  s.series[1].x[1] = NAN;
  EXPECT_THROW(line_plot(s), Error);
  EXPECT_THROW(line_plot(PlotSpec{}), Error);
  s = two_lines(false);
  s.width = 10;
  EXPECT_THROW(line_plot(s), Error);
}

}  // namespace
}  // namespace meadow
