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

// Palette indices for the pixels; false if some colour is not in palette.lookup.
bool index_pixels(const Palette& palette, const std::vector<uint32_t>& pixels,
                  std::vector<uint8_t>& indices);

}  // namespace meadow::render_detail
