// Prefix cache: bidirectional archs give exactly the prefix-block mask (checked against the
// NumPy reference with that mask and against the uncached C++ run with the same mask);
// causal archs give exactly the uncached logits.
#include <gtest/gtest.h>

#include "meadow/error.hpp"
#include "meadow/runtime/model.hpp"
#include "model_fixtures.hpp"

namespace meadow::model_test {
namespace {

using model::Mask;
using model::Model;

std::vector<int32_t> concat(const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
  std::vector<int32_t> c = a;
  c.insert(c.end(), b.begin(), b.end());
  return c;
}

const std::vector<int32_t> kPrefix{21, 8, 300, 77, 5, 140};
const std::vector<int32_t> kSuf1{9, 9, 250};
const std::vector<int32_t> kSuf2{13, 260, 2, 31};

class PrefixCache : public ::testing::TestWithParam<std::string> {};

TEST_P(PrefixCache, CachedEqualsSameMaskUncachedAndReference) {
  const std::string arch = GetParam();
  const std::string path = fixture(arch + "_F32", arch, "F32", shape_args("F32") + " --seed 3");
  const Model m = Model::load(path);
  const int64_t p = int64_t(kPrefix.size());
  model::RunOptions opts;
  opts.threads = 2;
  const auto cache = m.encode_prefix(kPrefix, 2);
  const std::vector<int64_t> pos1{p, p + 2}, pos2{p + 1, p + 3};
  const auto cached = m.run_cached(cache, {{kSuf1, pos1}, {kSuf2, pos2}}, opts);
  const auto same_mask = m.run({{concat(kPrefix, kSuf1), pos1}, {concat(kPrefix, kSuf2), pos2}},
                               opts, Mask::Prefix, p);
  const auto natural = m.run({{concat(kPrefix, kSuf2), pos2}}, opts);
  const auto ref = reference_logits(path, concat(kPrefix, kSuf2), pos2, "prefix", p);
  for (int64_t r = 0; r < 2; ++r) {
    for (size_t s = 0; s < 2; ++s)
      for (int64_t v = 0; v < cached[s].cols; ++v)
        ASSERT_NEAR(cached[s].row(r)[v], same_mask[s].row(r)[v], 1e-4);
    EXPECT_LT(rel_error(cached[1].row(r), ref[size_t(r)]), 1e-4);
    double diff = 0;
    for (int64_t v = 0; v < natural[0].cols; ++v)
      diff = std::max(diff, double(std::abs(natural[0].row(r)[v] - cached[1].row(r)[v])));
    if (m.config().causal)
      EXPECT_LT(diff, 1e-4) << "causal: cached must equal uncached";
    else
      EXPECT_GT(diff, 1e-3) << "bidirectional: the prefix mask must differ from full attention";
  }
}

INSTANTIATE_TEST_SUITE_P(AllArchs, PrefixCache,
                         ::testing::Values("dream", "llada", "qwen2", "llama"));

TEST(PrefixCacheErrors, PositionsInsidePrefixAndForeignCacheAreRejected) {
  const Model m =
      Model::load(fixture("llama_F32", "llama", "F32", shape_args("F32") + " --seed 3"));
  const auto cache = m.encode_prefix(kPrefix);
  EXPECT_THROW(m.run_cached(cache, {{kSuf1, {2}}}, {}), Error);
  EXPECT_THROW(m.run_cached(cache, {{kSuf1, {int64_t(kPrefix.size() + kSuf1.size())}}}, {}), Error);
  model::PrefixCache bad;
  bad.tokens = {1};
  EXPECT_THROW(m.run_cached(bad, {{kSuf1, {6}}}, {}), Error);
}

TEST(LogitsRow, ShiftedForDreamOnly) {
  const Model dream =
      Model::load(fixture("dream_F32", "dream", "F32", shape_args("F32") + " --seed 3"));
  const Model llada =
      Model::load(fixture("llada_F32", "llada", "F32", shape_args("F32") + " --seed 3"));
  EXPECT_EQ(dream.logits_row_for(5), 4);
  EXPECT_EQ(dream.logits_row_for(0), 0);
  EXPECT_EQ(llada.logits_row_for(5), 5);
}

}  // namespace
}  // namespace meadow::model_test
