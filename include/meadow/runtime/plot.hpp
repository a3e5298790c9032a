// Line plots as scenes (meadow/scene.hpp): axes with ticks, labels, a title and a legend, on
// linear or log-10 scales; rasterize() + write_png() turn one into a PNG. For measured
// tables (`meadow-mind latency`), not for live charts.
#pragma once

#include <string>
#include <vector>

#include "meadow/scene.hpp"

namespace meadow {

struct PlotSeries {
  std::string name;  // legend text
  std::vector<double> x, y;
  Rgb color{31, 119, 180};
};

struct PlotSpec {
  std::string title, x_label, y_label;
  bool log_x = false, log_y = false;  // log-10 axes (every value must then be > 0)
  int width = 800, height = 500;
  std::vector<PlotSeries> series;
};

// Throws meadow::Error for no series, a series whose x and y differ in length or are empty,
// a non-finite value, or a value <= 0 on a log axis.
Scene line_plot(const PlotSpec& spec);

}  // namespace meadow
