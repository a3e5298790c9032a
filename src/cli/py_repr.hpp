// Numbers printed the way Python prints them, so our JSON matches Gymnasium's text.
#pragma once

#include <string>

namespace meadow::cli {

// Python's repr(float): the shortest decimal that reads back as the same double, in fixed
// notation for exponents -4..15 (always with a ".0" or fraction), else like "1e-05" / "1e+16".
// NaN and infinities as json.dumps writes them ("NaN", "Infinity", "-Infinity").
std::string py_float_repr(double v);

}  // namespace meadow::cli
