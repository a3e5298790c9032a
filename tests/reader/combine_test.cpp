// combine (decide.py's): the default takes what no condition claims, "and" needs both, "or"
// either, an option holds as its best clause; without a default the options are normalized.
#include <gtest/gtest.h>

#include <numeric>

#include "meadow/error.hpp"
#include "reader/combine.hpp"

namespace meadow::reader {
namespace {

Clause clause(size_t n, Join join) {
  Clause c;
  c.literals.resize(n);
  c.join = join;
  return c;
}

// A stop (x), B go (the default), C wait (y and z): decide.py's test reading.
std::vector<OptionReading> reading() {
  return {{'A', "stop", {clause(1, Join::None)}, 0.0},
          {'B', "go", {}, 0.9},
          {'C', "wait", {clause(2, Join::And)}, 0.0}};
}

double sum(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0);
}

TEST(Combine, TheDefaultTakesWhatNoConditionClaims) {
  const double p[] = {0.1, 0.9, 0.1};
  const Combined c = combine(reading(), 1, p);
  EXPECT_EQ(best_option(c.probs), 1u);
  EXPECT_NEAR(sum(c.probs), 1.0, 1e-12);
  // P(none) = (1 - 0.1) (1 - 0.9 x 0.1); the rest shared in proportion to 0.1 : 0.09.
  const double none = 0.9 * (1 - 0.09);
  EXPECT_NEAR(c.probs[1], none, 1e-12);
  EXPECT_NEAR(c.probs[0], (1 - none) * 0.1 / 0.19, 1e-12);
  EXPECT_NEAR(c.option_p[2], 0.09, 1e-12);
}

TEST(Combine, AHoldingConditionWinsAndAndNeedsBoth) {
  const double both[] = {0.05, 0.95, 0.95};
  EXPECT_EQ(best_option(combine(reading(), 1, both).probs), 2u);
  const double one[] = {0.97, 0.95, 0.05};
  EXPECT_EQ(best_option(combine(reading(), 1, one).probs), 0u);
}

TEST(Combine, OrNeedsEitherAndAnOptionHoldsAsItsBestClause) {
  std::vector<OptionReading> r = {{'A', "a", {clause(2, Join::Or)}, 0},
                                  {'B', "b", {clause(1, Join::None), clause(1, Join::None)}, 0}};
  const double p[] = {0.5, 0.5, 0.2, 0.7};
  const Combined c = combine(r, std::nullopt, p);
  EXPECT_NEAR(c.option_p[0], 0.75, 1e-12);
  EXPECT_NEAR(c.option_p[1], 0.7, 1e-12);
  EXPECT_NEAR(c.probs[0], 0.75 / 1.45, 1e-12);  // no default: normalized
  EXPECT_NEAR(sum(c.probs), 1.0, 1e-12);
}

TEST(Combine, NothingHoldsAndNoDefaultGivesZerosAndTheFirstOption) {
  std::vector<OptionReading> r = {{'A', "a", {clause(1, Join::None)}, 0},
                                  {'B', "b", {clause(1, Join::None)}, 0}};
  const double p[] = {0.0, 0.0};
  const Combined c = combine(r, std::nullopt, p);
  EXPECT_EQ(c.probs, (std::vector<double>{0.0, 0.0}));
  EXPECT_EQ(best_option(c.probs), 0u);
  // A default and no condition that can hold: all to the default.
  std::vector<OptionReading> d = {{'A', "a", {}, 0.9}, {'B', "b", {clause(1, Join::None)}, 0}};
  const double q[] = {0.0};
  EXPECT_EQ(combine(d, 0, q).probs, (std::vector<double>{1.0, 0.0}));
}

TEST(Combine, TooFewProbabilitiesIsAnError) {
  const double p[] = {0.1};
  EXPECT_THROW(combine(reading(), 1, p), Error);
}

}  // namespace
}  // namespace meadow::reader
