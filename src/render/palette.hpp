// Up to 256-colour palettes for GIF frames: exact when the pixels have few colours (env
// frames usually do), median cut otherwise.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "meadow/scene.hpp"

namespace meadow::render_detail {

inline uint32_t pack(uint8_t r, uint8_t g, uint8_t b) {
  return (uint32_t{r} << 16) | (uint32_t{g} << 8) | b;
}
inline uint32_t pack_at(const uint8_t* rgb) {
  return pack(rgb[0], rgb[1], rgb[2]);
}

struct Palette {
  std::vector<Rgb> colors;                       // at most 256 entries
  std::unordered_map<uint32_t, uint8_t> lookup;  // every colour seen -> its (nearest) entry
  bool exact = true;                             // lookup maps each colour to itself
};

// A palette for the given packed pixels, with at most max_colors (1..256) entries.
Palette make_palette(const std::vector<uint32_t>& pixels, int max_colors = 256);

// The entry of colors (non-empty) nearest to color; *distance gets the weighted squared
// distance 2*dr^2 + 4*dg^2 + 3*db^2.
uint8_t nearest(const std::vector<Rgb>& colors, uint32_t color, int* distance = nullptr);

// Whether every pixel's colour is in palette.lookup.
bool covers(const Palette& palette, const std::vector<uint32_t>& pixels);

// Maps colours to palette indices, remembering the last colour: env frames are mostly runs
// of one colour, so most pixels skip the hash lookup. Colours must be in palette.lookup.
class Indexer {
 public:
  explicit Indexer(const Palette& p) : palette_(p) {}
  uint8_t operator()(uint32_t color) {
    if (!have_last_ || color != last_color_) {
      last_color_ = color;
      last_index_ = palette_.lookup.at(color);
      have_last_ = true;
    }
    return last_index_;
  }

 private:
  const Palette& palette_;
  uint32_t last_color_ = 0;
  uint8_t last_index_ = 0;
  bool have_last_ = false;
};

}  // namespace meadow::render_detail
