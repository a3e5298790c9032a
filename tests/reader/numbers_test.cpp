// Numbers as decide.py reads and compares them: parse_number (Python's float() after its
// replacements; expected values are what Python 3.11 gives), compare, and mix.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "reader/numbers.hpp"

namespace meadow::reader {
namespace {

TEST(ParseNumber, ReadsWhatPythonFloatReads) {
  const std::pair<const char*, double> ok[] = {
      {"2.5", 2.5},
      {"1,200", 1200},
      {"1 200", 1200},
      {"\xE2\x88\x92"
       "3",
       -3},
      {"-3", -3},
      {"+4", 4},
      {"1_000", 1000},
      {"1_0.2_5", 10.25},
      {"1e3", 1000},
      {"1E-2", 0.01},
      {".5", 0.5},
      {"5.", 5},
      {"5.e3", 5000},
      {"1.5e+3", 1500},
      {"1e5_0", 1e50},
      {"007", 7},
      {"\t7\n", 7},
      {"\xD9\xA3", 3},
      {"\xE0\xA5\xA9\xE0\xA5\xA6", 30},
      {"1e-400", 0},
      {"4.9e-324", 5e-324},
      {"12,5", 125},
  };
  for (const auto& [text, want] : ok) {
    const std::optional<double> got = parse_number(text);
    ASSERT_TRUE(got.has_value()) << text;
    EXPECT_EQ(*got, want) << text;
  }
  EXPECT_EQ(parse_number("inf"), std::numeric_limits<double>::infinity());
  EXPECT_EQ(parse_number("-Infinity"), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(parse_number("1e400"), std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(*parse_number("nan")));
  EXPECT_TRUE(std::isnan(*parse_number("+NaN")));
  for (const char* bad : {"1__0", "_1", "1_", ".", "e3", "abc", "", " ", "12%", "5 m", "1._5",
                          "1e_5", "0x10", "infinit", "1e", "--1", "1.2.3", "\xFF"})
    EXPECT_EQ(parse_number(bad), std::nullopt) << bad;
  EXPECT_EQ(parse_number(std::string("1\0", 2)), std::nullopt);
}

TEST(Compare, EachOperatorAndRanges) {
  EXPECT_EQ(compare(Op::Gt, 31, 30, std::nullopt), true);
  EXPECT_EQ(compare(Op::Gt, 30, 30, std::nullopt), false);
  EXPECT_EQ(compare(Op::Ge, 30, 30, std::nullopt), true);
  EXPECT_EQ(compare(Op::Lt, 29.9, 30, std::nullopt), true);
  EXPECT_EQ(compare(Op::Le, 30.1, 30, std::nullopt), false);
  EXPECT_EQ(compare(Op::In, 5, 3, 7.0), true);
  EXPECT_EQ(compare(Op::In, 5, 7, 3.0), true);  // either order
  EXPECT_EQ(compare(Op::In, 7, 3, 7.0), true);  // inclusive
  EXPECT_EQ(compare(Op::In, 8, 3, 7.0), false);
  EXPECT_EQ(compare(Op::In, 5, 3, std::nullopt), std::nullopt);  // a range needs both ends
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(compare(Op::Gt, nan, 3, std::nullopt), false);
}

TEST(Mix, TheComparisonDecidesWhereTheNumbersParse) {
  const std::array<double, kOps> gt = {0.1, 0.8, 0.02, 0.02, 0.03, 0.03};
  // v > t: P(comparison) x 1 + (1 - P(comparison)) x the judge.
  EXPECT_NEAR(mix(0.2, gt, "30", std::nullopt, "35"), 0.9 + 0.1 * 0.2, 1e-12);
  EXPECT_NEAR(mix(0.2, gt, "30", std::nullopt, "25"), 0.1 * 0.2, 1e-12);
  // Unparsed numbers, or no value run: the judge alone.
  EXPECT_EQ(mix(0.2, gt, "thirty", std::nullopt, "35"), 0.2);
  EXPECT_EQ(mix(0.2, gt, "30", std::nullopt, std::nullopt), 0.2);
  // Not a comparison (P(none) > 0.5): the judge alone; at exactly 0.5 it is one.
  const std::array<double, kOps> plain = {0.6, 0.4, 0, 0, 0, 0};
  EXPECT_EQ(mix(0.3, plain, "30", std::nullopt, "35"), 0.3);
  const std::array<double, kOps> even = {0.5, 0.5, 0, 0, 0, 0};
  EXPECT_NEAR(mix(0.3, even, "30", std::nullopt, "35"), 0.5 + 0.5 * 0.3, 1e-12);
  // "in" needs both ends.
  const std::array<double, kOps> in = {0.0, 0.1, 0.1, 0.1, 0.1, 0.6};
  EXPECT_EQ(mix(0.3, in, "3", std::nullopt, "5"), 0.3);
  EXPECT_NEAR(mix(0.3, in, "3", "7", "5"), 1.0, 1e-12);
  // Equal comparison probabilities: the first (">=" before "<").
  const std::array<double, kOps> tie = {0.2, 0.0, 0.4, 0.4, 0.0, 0.0};
  EXPECT_NEAR(mix(0.0, tie, "30", std::nullopt, "30"), 0.8, 1e-12);
}

}  // namespace
}  // namespace meadow::reader
