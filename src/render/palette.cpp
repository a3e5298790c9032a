// Exact palettes and median-cut quantization.
#include "render/palette.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace meadow::render_detail {

namespace {

struct ColorCount {
  uint32_t color;
  uint32_t count;
};

int channel(uint32_t c, int ch) {
  return static_cast<int>((c >> (16 - 8 * ch)) & 0xFF);
}

// A box of the median cut: a range of the colour list.
struct Box {
  size_t begin, end;
  int widest = 0;    // channel with the largest extent
  double score = 0;  // how much splitting this box should help
};

Box describe(const std::vector<ColorCount>& cs, size_t begin, size_t end) {
  std::array<int, 3> lo{255, 255, 255}, hi{0, 0, 0};
  double n = 0;
  for (size_t i = begin; i < end; ++i) {
    for (int ch = 0; ch < 3; ++ch) {
      lo[ch] = std::min(lo[ch], channel(cs[i].color, ch));
      hi[ch] = std::max(hi[ch], channel(cs[i].color, ch));
    }
    n += cs[i].count;
  }
  Box b{begin, end};
  int range = -1;
  for (int ch = 0; ch < 3; ++ch)
    if (hi[ch] - lo[ch] > range) range = hi[ch] - lo[ch], b.widest = ch;
  // Squared extent times population approximates the box's error; single colours can't split.
  b.score = end - begin > 1 ? double(range) * range * n : -1;
  return b;
}

Rgb mean_color(const std::vector<ColorCount>& cs, const Box& b) {
  double sum[3] = {0, 0, 0}, n = 0;
  for (size_t i = b.begin; i < b.end; ++i) {
    for (int ch = 0; ch < 3; ++ch) sum[ch] += double(channel(cs[i].color, ch)) * cs[i].count;
    n += cs[i].count;
  }
  auto avg = [&](int ch) { return static_cast<uint8_t>(std::lround(sum[ch] / n)); };
  return Rgb{avg(0), avg(1), avg(2)};
}

}  // namespace

uint8_t nearest(const std::vector<Rgb>& colors, uint32_t c, int* distance) {
  const int r = channel(c, 0), g = channel(c, 1), b = channel(c, 2);
  int best = 0;
  int best_d = std::numeric_limits<int>::max();
  for (size_t i = 0; i < colors.size(); ++i) {
    const int dr = r - colors[i].r, dg = g - colors[i].g, db = b - colors[i].b;
    const int d = 2 * dr * dr + 4 * dg * dg + 3 * db * db;  // rough perceptual weights
    if (d < best_d) best_d = d, best = static_cast<int>(i);
  }
  if (distance) *distance = best_d;
  return static_cast<uint8_t>(best);
}

Palette make_palette(const std::vector<uint32_t>& pixels, int max_colors) {
  max_colors = std::clamp(max_colors, 1, 256);
  std::unordered_map<uint32_t, uint32_t> hist;
  for (uint32_t p : pixels) ++hist[p];

  Palette pal;
  std::vector<ColorCount> cs;
  cs.reserve(hist.size());
  for (auto [c, n] : hist) cs.push_back({c, n});
  // Deterministic order (unordered_map iteration is not), most frequent first.
  std::sort(cs.begin(), cs.end(), [](const ColorCount& a, const ColorCount& b) {
    return a.count != b.count ? a.count > b.count : a.color < b.color;
  });

  if (cs.size() <= static_cast<size_t>(max_colors)) {
    for (const ColorCount& c : cs) {
      pal.lookup[c.color] = static_cast<uint8_t>(pal.colors.size());
      pal.colors.push_back(Rgb{static_cast<uint8_t>(c.color >> 16),
                               static_cast<uint8_t>(c.color >> 8), static_cast<uint8_t>(c.color)});
    }
    return pal;
  }

  pal.exact = false;
  std::vector<Box> boxes{describe(cs, 0, cs.size())};
  while (boxes.size() < static_cast<size_t>(max_colors)) {
    auto it = std::max_element(boxes.begin(), boxes.end(),
                               [](const Box& a, const Box& b) { return a.score < b.score; });
    if (it->score < 0) break;  // every box is a single colour
    const Box b = *it;
    const int ch = b.widest;
    std::sort(cs.begin() + b.begin, cs.begin() + b.end,
              [ch](const ColorCount& x, const ColorCount& y) {
                return channel(x.color, ch) < channel(y.color, ch);
              });
    // Split at the population median, keeping both halves non-empty.
    double total = 0, acc = 0;
    for (size_t i = b.begin; i < b.end; ++i) total += cs[i].count;
    size_t cut = b.begin + 1;
    for (size_t i = b.begin; i < b.end - 1; ++i) {
      acc += cs[i].count;
      cut = i + 1;
      if (acc >= total / 2) break;
    }
    *it = describe(cs, b.begin, cut);
    boxes.push_back(describe(cs, cut, b.end));
  }
  for (const Box& b : boxes) pal.colors.push_back(mean_color(cs, b));
  for (const ColorCount& c : cs) pal.lookup[c.color] = nearest(pal.colors, c.color);
  return pal;
}

bool covers(const Palette& palette, const std::vector<uint32_t>& pixels) {
  uint32_t last = 0;
  bool have_last = false;
  for (uint32_t c : pixels) {
    if (have_last && c == last) continue;
    if (!palette.lookup.count(c)) return false;
    last = c;
    have_last = true;
  }
  return true;
}

}  // namespace meadow::render_detail
