// line_plot(): a measured table as a picture (meadow/runtime/plot.hpp).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "meadow/error.hpp"
#include "meadow/runtime/plot.hpp"

namespace meadow {
namespace {

constexpr Rgb kInk{30, 30, 30}, kGrid{225, 225, 225};

struct Axis {
  bool log = false;
  double lo = 0, hi = 1;  // in axis units (log10 of the value on a log axis)
  double unit(double v) const { return log ? std::log10(v) : v; }
};

Axis fit_axis(const std::vector<double>& values, bool log) {
  Axis a;
  a.log = log;
  a.lo = a.unit(*std::min_element(values.begin(), values.end()));
  a.hi = a.unit(*std::max_element(values.begin(), values.end()));
  if (log) {
    a.lo = std::floor(a.lo);
    a.hi = std::ceil(a.hi);
  }
  if (a.hi - a.lo < 1e-12) {
    a.lo -= 1;
    a.hi += 1;
  }
  if (!log && a.lo > 0 && a.lo < 0.5 * a.hi) a.lo = 0;  // start at zero when close to it
  return a;
}

// Tick values in axis units: each decade on a log axis, else about 5 round steps.
std::vector<double> ticks(const Axis& a) {
  std::vector<double> out;
  if (a.log) {
    for (double d = a.lo; d <= a.hi + 1e-9; d += 1) out.push_back(d);
    return out;
  }
  const double raw = (a.hi - a.lo) / 5, mag = std::pow(10, std::floor(std::log10(raw)));
  const double step = raw / mag < 2 ? 2 * mag : raw / mag < 5 ? 5 * mag : 10 * mag;
  for (double t = std::ceil(a.lo / step) * step; t <= a.hi + 1e-9 * step; t += step)
    out.push_back(t);
  return out;
}

std::string tick_text(const Axis& a, double t) {
  char buf[32];
  const double v = a.log ? std::pow(10, t) : t;
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

Shape line(Point a, Point b, Rgb c, double w = 1) {
  Shape s;
  s.kind = Shape::Kind::Polyline;
  s.points = {a, b};
  s.filled = false;
  s.color = c;
  s.line_width = w;
  return s;
}

Shape text(Point at, std::string t, double size = 12) {
  Shape s;
  s.kind = Shape::Kind::Text;
  s.points = {at};
  s.text = std::move(t);
  s.font_size = size;
  s.color = kInk;
  return s;
}

}  // namespace

Scene line_plot(const PlotSpec& spec) {
  if (spec.series.empty()) throw Error("plot: no series");
  if (spec.width < 200 || spec.height < 150 || spec.width > 8000 || spec.height > 8000)
    throw Error("plot: size must be 200x150 .. 8000x8000 pixels");
  std::vector<double> xs, ys;
  for (const PlotSeries& s : spec.series) {
    if (s.x.empty() || s.x.size() != s.y.size())
      throw Error("plot: series \"" + s.name + "\" needs as many x as y values, at least one");
    for (size_t i = 0; i < s.x.size(); ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i]))
        throw Error("plot: series \"" + s.name + "\" has a non-finite value");
      if ((spec.log_x && s.x[i] <= 0) || (spec.log_y && s.y[i] <= 0))
        throw Error("plot: series \"" + s.name + "\" has a value <= 0 on a log axis");
    }
    xs.insert(xs.end(), s.x.begin(), s.x.end());
    ys.insert(ys.end(), s.y.begin(), s.y.end());
  }
  const Axis ax = fit_axis(xs, spec.log_x), ay = fit_axis(ys, spec.log_y);
  Scene sc;
  sc.width = spec.width;
  sc.height = spec.height;
  const double left = 80, right = spec.width - 30.0, top = 64, bottom = spec.height - 60.0;
  auto px = [&](double v) {
    return left + (ax.unit(v) - ax.lo) / (ax.hi - ax.lo) * (right - left);
  };
  auto py = [&](double v) {
    return bottom - (ay.unit(v) - ay.lo) / (ay.hi - ay.lo) * (bottom - top);
  };

  for (double t : ticks(ax)) {
    const double x = left + (t - ax.lo) / (ax.hi - ax.lo) * (right - left);
    sc.shapes.push_back(line({x, top}, {x, bottom}, kGrid));
    sc.shapes.push_back(text({x - 12, bottom + 8}, tick_text(ax, t), 11));
  }
  for (double t : ticks(ay)) {
    const double y = bottom - (t - ay.lo) / (ay.hi - ay.lo) * (bottom - top);
    sc.shapes.push_back(line({left, y}, {right, y}, kGrid));
    sc.shapes.push_back(text({8, y - 7}, tick_text(ay, t), 11));
  }
  sc.shapes.push_back(line({left, bottom}, {right, bottom}, kInk, 1.5));
  sc.shapes.push_back(line({left, top}, {left, bottom}, kInk, 1.5));
  sc.shapes.push_back(text({left, 10}, spec.title, 16));
  sc.shapes.push_back(text({(left + right) / 2 - 60, bottom + 30}, spec.x_label, 13));
  sc.shapes.push_back(text({8, top - 24}, spec.y_label, 13));

  double legend_y = top + 8;
  for (const PlotSeries& s : spec.series) {
    Shape path;
    path.kind = Shape::Kind::Polyline;
    path.filled = false;
    path.color = s.color;
    path.line_width = 2.5;
    for (size_t i = 0; i < s.x.size(); ++i) {
      path.points.push_back({px(s.x[i]), py(s.y[i])});
      Shape dot;
      dot.kind = Shape::Kind::Circle;
      dot.points = {{px(s.x[i]), py(s.y[i])}};
      dot.radius = 3.5;
      dot.color = s.color;
      sc.shapes.push_back(dot);
    }
    if (path.points.size() > 1) sc.shapes.push_back(path);
    sc.shapes.push_back(line({left + 14, legend_y + 8}, {left + 40, legend_y + 8}, s.color, 3));
    sc.shapes.push_back(text({left + 46, legend_y}, s.name, 12));
    legend_y += 20;
  }
  return sc;
}

}  // namespace meadow
