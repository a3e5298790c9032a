// JSON from files and arguments, read without trusting it, and JSON values quoted in errors.
//
// nlohmann::json parses without recursion, but dump(), copies and comparisons recurse: a file
// of 70,000 nested arrays overflowed the stack when an error text quoted it. So parsing caps
// the nesting, and errors quote values through json_excerpt(), which never recurses.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace meadow::util {

// Far deeper than any actions list, kwargs object or task file needs (a Box action nests once
// per dimension), far shallower than what overflows a stack.
inline constexpr size_t kMaxJsonDepth = 64;

// Parses text as one JSON value. Throws meadow::Error on one line, "<what>: invalid JSON...":
// a syntax error (nlohmann's message, with line and column), containers nested deeper than
// max_depth, a number out of range of a double (1e400) or an integer literal past 64 bits
// (99999999999999999999999). The message says where in the value when it can: "at [3]",
// "at ['gravity']".
nlohmann::json parse_json(std::string_view text, const std::string& what,
                          size_t max_depth = kMaxJsonDepth);

// v's compact JSON text (as v.dump()), cut to at most max_bytes with "..." after the cut.
// Never recurses, so a value nested however deep is safe to quote; invalid UTF-8 in strings
// is replaced (U+FFFD) instead of throwing.
std::string json_excerpt(const nlohmann::json& v, size_t max_bytes = 80);

// Levels of containers in v: 0 for a scalar, 1 for [1, 2], 2 for [[1]]. Never recurses.
size_t json_depth(const nlohmann::json& v);

}  // namespace meadow::util
