// The last layer runs on the asked rows alone (every row's K/V, the rest only where logits are
// read). Asking for a few rows must give exactly those rows of a pass that asks for all of them,
// under every mask, with a batch of several sequences, positions out of order and repeated.
#include <gtest/gtest.h>

#include <numeric>

#include "meadow/runtime/model.hpp"
#include "model_fixtures.hpp"

namespace meadow::model_test {
namespace {

using model::Logits;
using model::Mask;
using model::Model;
using model::Sequence;

const std::vector<int32_t> kPrefix{21, 8, 300, 77, 5, 140};
const std::vector<int32_t> kA{21, 8, 300, 77, 5, 140, 9, 9, 250, 4, 17};
const std::vector<int32_t> kB{21, 8, 300, 77, 5, 140, 13, 260, 2, 31};

std::vector<int64_t> all_of(const std::vector<int32_t>& t, int64_t from = 0) {
  std::vector<int64_t> p(t.size() - size_t(from));
  std::iota(p.begin(), p.end(), from);
  return p;
}

// Row `pos - from` of `full` (every position asked) equals the row asked for `pos` in `some`.
void expect_rows_equal(const Logits& full, int64_t from, const Logits& some,
                       const std::vector<int64_t>& asked) {
  ASSERT_EQ(some.rows, int64_t(asked.size()));
  for (size_t i = 0; i < asked.size(); ++i)
    for (int64_t v = 0; v < some.cols; ++v)
      ASSERT_NEAR(some.row(int64_t(i))[v], full.row(asked[i] - from)[v], 1e-5)
          << "position " << asked[i] << ", vocab " << v;
}

class ReadRows : public ::testing::TestWithParam<std::string> {
 protected:
  Model load() {
    const std::string arch = GetParam();
    return Model::load(fixture(arch + "_F32", arch, "F32", shape_args("F32") + " --seed 3"));
  }
};

TEST_P(ReadRows, AFewRowsEqualTheSameRowsOfAFullPass) {
  const Model m = load();
  model::RunOptions opts;
  opts.threads = 2;
  const std::vector<int64_t> a{10, 2, 7, 2}, b{0, 9};  // out of order, repeated, first and last
  const int64_t p = int64_t(kPrefix.size());
  for (Mask mask : {Mask::Natural, Mask::Prefix}) {
    const auto full = m.run({{kA, all_of(kA)}, {kB, all_of(kB)}}, opts, mask, p);
    const auto some = m.run({{kA, a}, {kB, b}}, opts, mask, p);
    expect_rows_equal(full[0], 0, some[0], a);
    expect_rows_equal(full[1], 0, some[1], b);
  }
  const auto full = m.run_block_causal({{kA, all_of(kA)}}, opts, {3, 8});
  const std::vector<int64_t> c{1, 2, 3, 8, 9};  // rows on both sides of each block end
  expect_rows_equal(full[0], 0, m.run_block_causal({{kA, c}}, opts, {3, 8})[0], c);
}

TEST_P(ReadRows, CachedRunsAndPrefixEncodingAreUnchanged) {
  const Model m = load();
  model::RunOptions opts;
  opts.threads = 2;
  const int64_t p = int64_t(kPrefix.size());
  const auto cache = m.encode_prefix(kPrefix, 2);
  const std::vector<int32_t> sa(kA.begin() + p, kA.end()), sb(kB.begin() + p, kB.end());
  const std::vector<int64_t> a{p + 4, p}, b{p + 1, p + 2, p + 3};
  const auto full = m.run_cached(cache, {{sa, all_of(kA, p)}, {sb, all_of(kB, p)}}, opts);
  const auto some = m.run_cached(cache, {{sa, a}, {sb, b}}, opts);
  expect_rows_equal(full[0], p, some[0], a);
  expect_rows_equal(full[1], p, some[1], b);
  // The prefix's K/V equal those a pass over the prefix keeps while asking for every row.
  model::PrefixCache grown;
  m.extend(grown, {kPrefix, all_of(kPrefix)}, opts);
  ASSERT_EQ(grown.k.size(), cache.k.size());
  for (size_t l = 0; l < cache.k.size(); ++l) {
    EXPECT_EQ(grown.k[l], cache.k[l]) << "layer " << l;
    EXPECT_EQ(grown.v[l], cache.v[l]) << "layer " << l;
  }
}

INSTANTIATE_TEST_SUITE_P(AllArchs, ReadRows, ::testing::Values("dream", "llada", "qwen2", "llama"));

}  // namespace
}  // namespace meadow::model_test
