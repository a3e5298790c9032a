// Integer arithmetic on wide weights, and the float re-check that keeps near ties the float
// path's: on a 2048-wide Q8_0 fixture (wide enough for Arithmetic::Auto to multiply in
// integers), decisions under the re-check margin equal an all-float decider's exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "meadow/error.hpp"
#include "meadow/runtime/decider.hpp"
#include "meadow/runtime/model.hpp"
#include "meadow/runtime/tokenizer.hpp"
#include "mind_fixture.hpp"

namespace meadow::decision {
namespace {

const std::vector<Choice> kChoices = {{'A', "stop"}, {'B', "go"}, {'C', "slow down"}};
const std::string kRule = "If the light is red, choose A; if green, B; if yellow, C.";
const std::vector<std::string> kSituations = {"The light is red and the road is wet.",
                                              "A green light, and nobody is crossing.",
                                              "The light turns yellow while the car is far away.",
                                              "Green.",
                                              "x",
                                              "Red, red, red."};

std::string wide_fixture() {
  return mind_test::wide_q8_fixture("recheck");
}

bool env_overrides_arithmetic() {
  return std::getenv("MEADOW_MATMUL") != nullptr;
}

TEST(FloatRecheck, NearTiesAreDecidedInFloat) {
  if (env_overrides_arithmetic()) GTEST_SKIP() << "MEADOW_MATMUL is set";
  const model::Model m = model::Model::load(wide_fixture());
  const Tokenizer tok = Tokenizer::from_gguf(m.file());
  ASSERT_TRUE(m.uses_integers(4));  // Auto: 2048-wide Q8_0 weights take the integer kernels
  EXPECT_FALSE(m.uses_integers(4, model::Arithmetic::Float));

  for (const bool cache : {true, false}) {
    DecideOptions o;
    o.prefix_cache = cache;
    o.want_coherence = false;
    o.float_recheck = 1.0;  // every decision again in float: the float path's answers
    const Decider in_float(m, tok, kRule, kChoices, o);
    o.float_recheck = 0.0;  // never: the integer path's answers
    const Decider in_integers(m, tok, kRule, kChoices, o);
    o.float_recheck = 0.1;  // the default
    const Decider checked(m, tok, kRule, kChoices, o);

    double moved = 0;
    int rechecked = 0;
    for (const std::string& s : kSituations) {
      const Decision f = in_float.decide(s), i = in_integers.decide(s), c = checked.decide(s);
      ASSERT_EQ(f.probs.size(), kChoices.size());
      for (size_t k = 0; k < f.probs.size(); ++k)
        moved = std::max(moved, std::abs(f.probs[k].second - i.probs[k].second));
      if (i.margin < 0.1) {
        ++rechecked;
        EXPECT_EQ(c.letter, f.letter) << s;
        for (size_t k = 0; k < f.probs.size(); ++k)
          EXPECT_EQ(c.probs[k].second, f.probs[k].second) << s;  // the float pass itself
      } else {
        EXPECT_EQ(c.letter, f.letter) << s << " (margin " << i.margin << ")";
      }
    }
    EXPECT_GT(moved, 0.0) << "the integer path should round differently";
    EXPECT_LT(moved, 0.05) << "integer rounding moved a probability by " << moved;
    // Random weights give near-uniform letters: most decisions are near ties.
    EXPECT_GT(rechecked, 0);
  }
}

TEST(FloatRecheck, RejectsAMarginOutsideZeroToOne) {
  const model::Model m = model::Model::load(wide_fixture());
  const Tokenizer tok = Tokenizer::from_gguf(m.file());
  DecideOptions o;
  o.float_recheck = 1.5;
  EXPECT_THROW(Decider(m, tok, kRule, kChoices, o), Error);
  o.float_recheck = -0.1;
  EXPECT_THROW(Decider(m, tok, kRule, kChoices, o), Error);
}

TEST(FloatRecheck, NarrowQuantizedModelsStayInFloat) {
  if (env_overrides_arithmetic()) GTEST_SKIP() << "MEADOW_MATMUL is set";
  // 64 wide, narrower than kIntegerMinCols: no gain measured there, so float.
  const std::string out = (mind_test::fixture_dir() / "recheck-qwen2-q8-64.gguf").string();
  mind_test::run_command(std::string(MEADOW_PYTHON) + " " + MEADOW_SOURCE_DIR +
                         "/tools/make_fixture.py --arch qwen2 --type Q8_0 --vocab 512 --hidden 64 "
                         "--ffn 128 --out " +
                         mind_test::shell_quote(out));
  const model::Model m = model::Model::load(out);
  EXPECT_FALSE(m.uses_integers(64));
  EXPECT_TRUE(m.uses_integers(64, model::Arithmetic::Integer));
}

}  // namespace
}  // namespace meadow::decision
