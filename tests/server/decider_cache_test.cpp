// The /v1/decide table cache (src/server/decider_cache.hpp): reuse of a table, eviction by the
// bytes of prefix K/V held, and tables larger than the budget decided but not kept.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "meadow/runtime/model.hpp"
#include "meadow/runtime/tokenizer.hpp"
#include "server/decider_cache.hpp"

#include "../decision/loaded_model.hpp"
#include "../decision/mind_fixture.hpp"

namespace {

using meadow::decision::Choice;
using meadow::server::DeciderCache;

using meadow::mind_test::Loaded;

Loaded load() {
  return meadow::mind_test::load(meadow::mind_test::train_fixture());
}

const std::vector<Choice> kChoices{{'A', "go left"}, {'B', "go right"}};

TEST(DeciderCache, ReusesATableAndEvictsByBytes) {
  const Loaded L = load();
  DeciderCache big(L.model, L.tok, {}, size_t(1) << 30);
  const auto a = big.get("rule one", kChoices);
  EXPECT_EQ(big.get("rule one", kChoices), a);  // the same decider, not a new one
  big.get("rule two", kChoices);
  EXPECT_EQ(big.size(), 2u);
  const size_t one = big.bytes() / 2;  // the two tables are about the same size
  ASSERT_GT(one, 0u);
  DeciderCache small(L.model, L.tok, {}, one + one / 2);  // room for one table
  const auto first = small.get("rule one", kChoices);
  small.get("rule two", kChoices);
  EXPECT_EQ(small.size(), 1u);
  EXPECT_LE(small.bytes(), one + one / 2);
  EXPECT_NE(small.get("rule one", kChoices), first);  // evicted, so made again
  EXPECT_EQ(first->decide("The wall is on the left.").letter,
            small.get("rule one", kChoices)->decide("The wall is on the left.").letter);
}

TEST(DeciderCache, ATableOverTheBudgetIsDecidedButNotKept) {
  const Loaded L = load();
  DeciderCache none(L.model, L.tok, {}, 0);
  const auto d = none.get("rule one", kChoices);
  ASSERT_TRUE(d);
  EXPECT_TRUE(d->decide("The wall is on the left.").letter == 'A' ||
              d->decide("The wall is on the left.").letter == 'B');
  EXPECT_EQ(none.size(), 0u);
  EXPECT_EQ(none.bytes(), 0u);
}

}  // namespace
