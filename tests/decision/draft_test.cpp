// The step-0 draft of a generation prompt: one pass over the prompt and a mask slot (causal
// models: the next token), Σ the mean of its positions' confidences.
#include <gtest/gtest.h>

#include <numeric>
#include <string>
#include <vector>

#include "loaded_model.hpp"
#include "meadow/error.hpp"
#include "meadow/runtime/decider.hpp"
#include "meadow/runtime/model.hpp"
#include "meadow/runtime/tokenizer.hpp"
#include "mind_fixture.hpp"

namespace meadow::decision {
namespace {

using mind_test::load;
using mind_test::Loaded;
using mind_test::pole_prompt;

TEST(Draft, OnePassOverPromptAndSlot) {
  const Loaded L = load(mind_test::train_fixture());
  const Draft d = draft(L.model, L.tok, pole_prompt(L), 6);
  ASSERT_EQ(d.tokens.size(), 6u);
  ASSERT_EQ(d.confidence.size(), 6u);
  const double mean = std::accumulate(d.confidence.begin(), d.confidence.end(), 0.0) / 6;
  EXPECT_NEAR(d.coherence, mean, 1e-12);
  EXPECT_GT(d.coherence, 0);
  EXPECT_LE(d.coherence, 1);
  const Loaded C = load(mind_test::plain_fixture("qwen2"));
  const Draft causal = draft(C.model, C.tok, pole_prompt(C), 6);
  EXPECT_EQ(causal.tokens.size(), 1u);  // a causal model's step-0 draft is its next token
  EXPECT_THROW(draft(L.model, L.tok, {}, 4), Error);
  EXPECT_THROW(draft(L.model, L.tok, pole_prompt(L), 0), Error);
}

}  // namespace
}  // namespace meadow::decision
