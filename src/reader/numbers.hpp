// A numeric literal judged by arithmetic (decide.py's parse_number, compare and mix): the
// judge's op head says which comparison the literal makes, its threshold tags mark the number(s)
// in the literal, the value head the quantity in the situation; where they parse, the
// comparison decides, weighted by how sure the op head is that the literal is one.
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace meadow::reader {

// data.OPS, in its order: P(none) first.
enum class Op { None = 0, Gt, Ge, Lt, Le, In };
inline constexpr int kOps = 6;

// Python's float() of the text with ',' and ' ' removed and U+2212 (minus sign) read as '-':
// surrounding whitespace, a sign, digits with single '_' between them, a fraction, an exponent,
// inf / infinity / nan in any case, and Unicode decimal digits; anything else is no number.
std::optional<double> parse_number(std::string_view text);

// v op t1 ("in": between t1 and t2 inclusive, either order); nullopt for "in" without t2.
// NaN compares as Python's floats do.
std::optional<bool> compare(Op op, double v, double t1, std::optional<double> t2);

// P(holds) of a literal: the judge's p_judge, unless the op head makes it a comparison
// (P(none) < 0.5) whose threshold t1 (and t2) and value v parse: then
// P(comparison) x [v op t] + (1 - P(comparison)) x p_judge.
double mix(double p_judge, const std::array<double, kOps>& op_p, std::optional<std::string_view> t1,
           std::optional<std::string_view> t2, std::optional<std::string_view> v);

}  // namespace meadow::reader
