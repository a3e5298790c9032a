// Grouped-query attention with full and causal masks against a double reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "reference.hpp"
#include "tensor/ops.hpp"
#include "tensor/thread_pool.hpp"

namespace meadow::tensor {
namespace {

std::vector<double> ref_attention(const std::vector<float>& q, int64_t n_q, int64_t q0,
                                  const std::vector<float>& k, const std::vector<float>& v,
                                  int64_t n_kv, int64_t nh, int64_t nkv, int64_t hd,
                                  AttnMask mask) {
  std::vector<double> out(size_t(n_q * nh * hd), 0.0);
  for (int64_t t = 0; t < n_q; ++t)
    for (int64_t h = 0; h < nh; ++h) {
      const int64_t g = h / (nh / nkv);
      const int64_t vis = mask == AttnMask::Causal ? std::min(n_kv, q0 + t + 1) : n_kv;
      std::vector<double> s(static_cast<size_t>(vis));
      double mx = -1e300;
      for (int64_t j = 0; j < vis; ++j) {
        double d = 0;
        for (int64_t i = 0; i < hd; ++i)
          d += double(q[(t * nh + h) * hd + i]) * k[(j * nkv + g) * hd + i];
        s[j] = d / std::sqrt(double(hd));
        mx = std::max(mx, s[j]);
      }
      double z = 0;
      for (auto& x : s) z += (x = std::exp(x - mx));
      for (int64_t j = 0; j < vis; ++j)
        for (int64_t i = 0; i < hd; ++i)
          out[(t * nh + h) * hd + i] += s[j] / z * v[(j * nkv + g) * hd + i];
    }
  return out;
}

struct Case {
  int64_t n_q, q0, n_kv, nh, nkv, hd;
  AttnMask mask;
};

TEST(Attention, MatchesReferenceForGqaAndMasks) {
  const Case cases[] = {
      {5, 0, 5, 4, 2, 8, AttnMask::Full},       // GQA, 2 query heads per kv head
      {5, 0, 5, 4, 4, 20, AttnMask::Causal},    // hd not a multiple of the vector width
      {3, 6, 9, 6, 2, 16, AttnMask::Causal},    // queries after a cached prefix (q0 offset)
      {40, 0, 40, 2, 1, 32, AttnMask::Full},    // several rows per work block
      {70, 3, 73, 2, 1, 16, AttnMask::Causal},  // more rows than one work block
  };
  for (const Case& c : cases) {
    const auto q = testing::random_floats(c.n_q * c.nh * c.hd, 1, 2.0f);
    const auto k = testing::random_floats(c.n_kv * c.nkv * c.hd, 2, 2.0f);
    const auto v = testing::random_floats(c.n_kv * c.nkv * c.hd, 3);
    std::vector<float> out(q.size(), NAN);
    attention(q.data(), c.n_q, c.q0, k.data(), v.data(), c.n_kv, c.nh, c.nkv, c.hd, c.mask,
              out.data(), Threads{2});
    const auto want = ref_attention(q, c.n_q, c.q0, k, v, c.n_kv, c.nh, c.nkv, c.hd, c.mask);
    for (size_t i = 0; i < out.size(); ++i) ASSERT_NEAR(out[i], want[i], 1e-5) << "i=" << i;
  }
}

// Keys in parts where they lie (a cached prefix, then a segment's own rows) give the reference
// of the parts laid end to end, wherever the split falls (an empty part, one past the rows a
// causal query sees) and in any number of parts.
TEST(Attention, KeysInPartsMatchTheConcatenatedKeys) {
  const Case cases[] = {
      {3, 6, 9, 6, 2, 16, AttnMask::Full},       {3, 6, 9, 6, 2, 16, AttnMask::Causal},
      {70, 30, 100, 4, 2, 16, AttnMask::Causal}, {70, 30, 100, 4, 2, 16, AttnMask::Full},
      {30, 99, 129, 9, 3, 64, AttnMask::Causal},  // a SmolLM2 decision: the lane kernel
      {30, 10, 40, 4, 2, 6, AttnMask::Causal},    // hd not a multiple of 4: sgemm per head
      {2, 10, 12, 3, 3, 8, AttnMask::Full},       // 2 rows per K/V head: sgemm per head
  };
  ThreadPool pool(2);
  std::vector<std::vector<float>> scratch(2);
  for (const Case& c : cases) {
    const int64_t kvd = c.nkv * c.hd;
    const auto q = testing::random_floats(c.n_q * c.nh * c.hd, 7, 2.0f);
    const auto k = testing::random_floats(c.n_kv * kvd, 8, 2.0f);
    const auto v = testing::random_floats(c.n_kv * kvd, 9);
    const auto want = ref_attention(q, c.n_q, c.q0, k, v, c.n_kv, c.nh, c.nkv, c.hd, c.mask);
    const std::vector<std::vector<int64_t>> splits = {
        {c.q0}, {0}, {c.n_kv}, {1, c.q0 + 1}, {c.q0 / 2, c.q0, c.q0 + 2}};
    for (const auto& cut : splits) {
      // Each part its own copy, so nothing can read across a part's end.
      std::vector<std::vector<float>> ks, vs;
      std::vector<KvPart> parts;
      int64_t start = 0;
      for (size_t i = 0; i <= cut.size(); ++i) {
        const int64_t end = i < cut.size() ? std::min(cut[i], c.n_kv) : c.n_kv;
        ks.emplace_back(k.begin() + start * kvd, k.begin() + end * kvd);
        vs.emplace_back(v.begin() + start * kvd, v.begin() + end * kvd);
        start = end;
      }
      for (size_t i = 0; i < ks.size(); ++i)
        parts.push_back({ks[i].data(), vs[i].data(), int64_t(ks[i].size()) / kvd});
      // Without a pool, and on 2 workers with scratch they reuse (a second call the same).
      std::vector<float> out(q.size(), NAN);
      attention(q.data(), c.n_q, c.q0, parts, c.nh, c.nkv, c.hd, c.mask, out.data(), Threads{2});
      for (size_t i = 0; i < out.size(); ++i) ASSERT_NEAR(out[i], want[i], 1e-5) << "i=" << i;
      for (int call = 0; call < 2; ++call) {
        std::vector<float> again(q.size(), NAN);
        attention(q.data(), c.n_q, c.q0, parts, c.nh, c.nkv, c.hd, c.mask, again.data(),
                  Threads{2, &pool, scratch});
        ASSERT_EQ(again, out) << "pool, call " << call;
      }
    }
  }
}

TEST(Attention, CausalFirstQueryCopiesFirstValue) {
  const int64_t hd = 4;
  const auto q = testing::random_floats(2 * hd, 4);
  const auto k = testing::random_floats(2 * hd, 5);
  const auto v = testing::random_floats(2 * hd, 6);
  std::vector<float> out(2 * hd);
  attention(q.data(), 2, 0, k.data(), v.data(), 2, 1, 1, hd, AttnMask::Causal, out.data(),
            Threads{1});
  for (int64_t i = 0; i < hd; ++i) EXPECT_FLOAT_EQ(out[i], v[i]);
}

}  // namespace
}  // namespace meadow::tensor
