// Minimal UTF-8 helpers: strict decoding (no overlongs, no surrogates, <= U+10FFFF).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace meadow::tokenizer {

// Decodes the code point at s[i] and advances i past it. On an invalid sequence returns
// nullopt and advances i by one byte.
std::optional<char32_t> utf8_next(std::string_view s, size_t& i);
// Length of the valid sequence starting at s[i], or 0 if the bytes there are not valid UTF-8.
size_t utf8_valid_length(std::string_view s, size_t i);
std::string utf8_encode(char32_t cp);

}  // namespace meadow::tokenizer
