// Generation: the cached block-diffusion path equals the uncached reference of the same
// algorithm (block-causal mask, recomputed every step), on dream (shifted logits) and llada;
// causal token-by-token likewise; seeded sampling; stops, limits and bad options.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../decision/loaded_model.hpp"
#include "../decision/mind_fixture.hpp"
#include "meadow/error.hpp"
#include "meadow/runtime/generate.hpp"
#include "meadow/runtime/model.hpp"
#include "meadow/runtime/tokenizer.hpp"

namespace meadow::generate {
namespace {

using mind_test::load;
using mind_test::Loaded;
using mind_test::pole_prompt;

void expect_cached_equals_reference(const std::string& path, GenerateOptions o) {
  const Loaded L = load(path);
  const auto prompt = pole_prompt(L);
  o.cache = true;
  const Generation cached = generate(L.model, L.tok, prompt, o);
  o.cache = false;
  const Generation full = generate(L.model, L.tok, prompt, o);
  EXPECT_EQ(cached.tokens, full.tokens);
  EXPECT_EQ(cached.text, full.text);
  EXPECT_EQ(cached.finish_reason, full.finish_reason);
  EXPECT_EQ(cached.steps, full.steps);
  EXPECT_FALSE(cached.tokens.empty());
}

TEST(Generate, DreamCachedEqualsReferenceOneTokenPerStep) {
  GenerateOptions o;
  o.max_new_tokens = 12;
  o.block_size = 4;
  expect_cached_equals_reference(mind_test::train_fixture(), o);
}

TEST(Generate, DreamCachedEqualsReferenceFewStepsAndThreshold) {
  GenerateOptions o;
  o.max_new_tokens = 10;  // a shorter last block
  o.block_size = 4;
  o.steps_per_block = 2;
  o.confidence = Confidence::Margin;
  expect_cached_equals_reference(mind_test::train_fixture(), o);
  o.steps_per_block = 0;
  o.threshold = 0.001;
  o.confidence = Confidence::Probability;
  expect_cached_equals_reference(mind_test::train_fixture(), o);
}

TEST(Generate, LladaCachedEqualsReference) {
  GenerateOptions o;
  o.max_new_tokens = 8;
  o.block_size = 4;
  o.confidence = Confidence::NegEntropy;
  expect_cached_equals_reference(mind_test::plain_fixture("llada"), o);
}

TEST(Generate, CausalCachedEqualsReference) {
  GenerateOptions o;
  o.max_new_tokens = 10;
  expect_cached_equals_reference(mind_test::plain_fixture("qwen2"), o);
}

// logprobs >= 0 (causal): one entry per token, read from the row the token was picked from, so
// equal to the uncached path's row; greedy picks are their row's most likely. The callback sees
// the logprobs of every token committed so far. Diffusion models record none.
TEST(Generate, CausalLogprobsFollowTheTokens) {
  const Loaded L = load(mind_test::plain_fixture("qwen2"));
  GenerateOptions o;
  o.max_new_tokens = 6;
  o.ignore_eos = true;
  o.logprobs = 3;
  size_t seen = 0;
  const Generation g = generate(L.model, L.tok, pole_prompt(L), o, [&](const Generation& so_far) {
    EXPECT_EQ(so_far.logprobs.size(), so_far.tokens.size());
    seen = so_far.logprobs.size();
    return true;
  });
  ASSERT_EQ(g.logprobs.size(), g.tokens.size());
  EXPECT_EQ(seen, g.tokens.size());
  o.cache = false;
  const Generation full = generate(L.model, L.tok, pole_prompt(L), o);
  ASSERT_EQ(full.tokens, g.tokens);
  for (size_t i = 0; i < g.tokens.size(); ++i) {
    const TokenLogprob& t = g.logprobs[i];
    EXPECT_EQ(t.id, g.tokens[i]);
    EXPECT_LE(t.logprob, 0.0);
    ASSERT_EQ(t.top.size(), 3u);
    EXPECT_EQ(t.top[0].first, t.id);
    EXPECT_NEAR(t.top[0].second, t.logprob, 1e-12);
    EXPECT_GE(t.top[0].second, t.top[1].second);
    EXPECT_NEAR(full.logprobs[i].logprob, t.logprob, 1e-4);
  }
  o.logprobs = -1;
  EXPECT_TRUE(generate(L.model, L.tok, pole_prompt(L), o).logprobs.empty());
  const Loaded D = load(mind_test::plain_fixture("dream"));
  o.logprobs = 2;
  o.max_new_tokens = 4;
  EXPECT_TRUE(generate(D.model, D.tok, pole_prompt(D), o).logprobs.empty());
}

TEST(Generate, StepsAndPassesFollowTheSchedule) {
  const Loaded L = load(mind_test::train_fixture());
  GenerateOptions o;
  o.max_new_tokens = 8;
  o.block_size = 4;
  const Generation one = generate(L.model, L.tok, pole_prompt(L), o);
  if (one.finish_reason == "length") {  // (a random model may end early)
    EXPECT_EQ(one.tokens.size(), 8u);
    EXPECT_EQ(one.steps, 8);           // one token a step
    EXPECT_EQ(one.passes, 1 + 8 + 2);  // prompt, steps, each block committed
  }
  o.threshold = 1.0;  // nothing is that sure: exactly one token a step still
  EXPECT_EQ(generate(L.model, L.tok, pole_prompt(L), o).steps, one.steps);
  o.threshold = 0;
  o.steps_per_block = 1;  // the whole block at once
  const Generation fast = generate(L.model, L.tok, pole_prompt(L), o);
  if (fast.finish_reason == "length") {
    EXPECT_EQ(fast.steps, 2);
  }
}

TEST(Generate, SamplingIsReproduciblePerSeed) {
  for (const std::string& path : {mind_test::train_fixture(), mind_test::plain_fixture("qwen2")}) {
    const Loaded L = load(path);
    GenerateOptions o;
    o.max_new_tokens = 12;
    o.block_size = 4;
    o.temperature = 1.5;
    o.top_p = 0.95;
    o.seed = 7;
    const Generation a = generate(L.model, L.tok, pole_prompt(L), o);
    const Generation b = generate(L.model, L.tok, pole_prompt(L), o);
    EXPECT_EQ(a.tokens, b.tokens) << path;
    o.seed = 8;
    const Generation c = generate(L.model, L.tok, pole_prompt(L), o);
    EXPECT_NE(a.tokens, c.tokens) << path;
    o.seed = 7;
    o.cache = false;
    EXPECT_EQ(generate(L.model, L.tok, pole_prompt(L), o).tokens, a.tokens) << path;
  }
}

TEST(Generate, StopsAtAStopStringAndWhenTheCallerSaysSo) {
  const Loaded L = load(mind_test::train_fixture());
  GenerateOptions o;
  o.max_new_tokens = 12;
  o.block_size = 4;
  const Generation g = generate(L.model, L.tok, pole_prompt(L), o);
  ASSERT_GE(g.text.size(), 3u);
  o.stop = {g.text.substr(2, 1)};
  const Generation s = generate(L.model, L.tok, pole_prompt(L), o);
  EXPECT_EQ(s.finish_reason, "stop");
  EXPECT_EQ(s.text, g.text.substr(0, g.text.find(o.stop[0])));

  o.stop.clear();
  int calls = 0;
  const Generation one_block =
      generate(L.model, L.tok, pole_prompt(L), o, [&](const Generation&) { return ++calls < 1; });
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(one_block.finish_reason, "stop");
  EXPECT_LE(one_block.tokens.size(), 4u);
}

TEST(Generate, StopTokensIncludeTheTurnEnd) {
  const Loaded L = load(mind_test::train_fixture());
  const auto ids = stop_token_ids(L.tok);
  ASSERT_TRUE(L.tok.find("<|im_end|>"));
  EXPECT_NE(std::find(ids.begin(), ids.end(), *L.tok.find("<|im_end|>")), ids.end());
  if (L.tok.mask_id()) {
    EXPECT_EQ(std::find(ids.begin(), ids.end(), *L.tok.mask_id()), ids.end());
  }
}

TEST(Generate, BadOptionsAreClearErrors) {
  const Loaded L = load(mind_test::train_fixture());
  const auto p = pole_prompt(L);
  auto fails = [&](GenerateOptions o, std::vector<int32_t> prompt, const std::string& what) {
    try {
      generate(L.model, L.tok, prompt, o);
      ADD_FAILURE() << "no error for " << what;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  GenerateOptions o;
  fails(o, {}, "no tokens");
  o.max_new_tokens = 0;
  fails(o, p, "max_new_tokens");
  o = {};
  o.block_size = 0;
  fails(o, p, "block_size");
  o = {};
  o.top_p = 0;
  fails(o, p, "top_p");
  o = {};
  o.temperature = -1;
  fails(o, p, "temperature");
  o = {};
  o.max_new_tokens = int(L.model.config().n_ctx);
  fails(o, p, "context length");
  EXPECT_THROW(parse_confidence("loudness"), Error);
}

TEST(Generate, ExtendMatchesTheBlockCausalPass) {
  const Loaded L = load(mind_test::train_fixture());
  const std::vector<int32_t> a = {10, 20, 30, 40, 50}, b = {60, 70, 80}, c = {90, 100};
  model::PrefixCache cache;
  model::RunOptions ro;
  L.model.extend(cache, {a, {}}, ro);
  L.model.extend(cache, {b, {}}, ro);
  const model::Logits cached = L.model.run_cached(cache, {{c, {8, 9}}}, ro).front();
  std::vector<int32_t> all = a;
  all.insert(all.end(), b.begin(), b.end());
  all.insert(all.end(), c.begin(), c.end());
  const model::Logits ref = L.model.run_block_causal({{all, {8, 9}}}, ro, {5, 8}).front();
  ASSERT_EQ(cached.data.size(), ref.data.size());
  float worst = 0, scale = 0;
  for (size_t i = 0; i < ref.data.size(); ++i) {
    worst = std::max(worst, std::abs(cached.data[i] - ref.data[i]));
    scale = std::max(scale, std::abs(ref.data[i]));
  }
  EXPECT_LE(worst, 1e-5f * std::max(scale, 1.0f));
  EXPECT_EQ(cache.size(), 8);
}

}  // namespace
}  // namespace meadow::generate
