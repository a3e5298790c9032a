// Validation shared by everything that consumes a Frame.
#pragma once

#include <string>

#include "meadow/error.hpp"
#include "meadow/scene.hpp"

namespace meadow::render_detail {

// Throws meadow::Error "<what>: ..." for a zero-size frame or one whose byte count is wrong.
inline void check_frame(const Frame& f, const std::string& what) {
  if (f.width <= 0 || f.height <= 0)
    throw Error(what + ": frame has zero size (" + std::to_string(f.width) + "x" +
                std::to_string(f.height) + ")");
  const size_t want = static_cast<size_t>(f.width) * f.height * 3;
  if (f.rgb.size() != want)
    throw Error(what + ": frame " + std::to_string(f.width) + "x" + std::to_string(f.height) +
                " holds " + std::to_string(f.rgb.size()) + " bytes, expected " +
                std::to_string(want));
}

}  // namespace meadow::render_detail
