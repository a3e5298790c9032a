// The C++ forward against the independent NumPy reference on random fixtures of every
// architecture and weight type.
//
// Tolerance: the runtime decodes quantized weights to float32 exactly as the format defines
// (the reference decodes the same bytes with its own numpy code), so the only difference from
// the float64 reference is float32 rounding in the kernels — for every weight type. The bound
// is therefore the same 1e-4 of the row's largest |logit| for all types; measured errors are
// <= 6e-7 (llama fixtures, all seven types).
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "meadow/runtime/model.hpp"
#include "model_fixtures.hpp"

namespace meadow::model_test {
namespace {

using model::Model;

constexpr double kTol = 1e-4;

class ForwardVsReference : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(ForwardVsReference, LogitsMatchReferenceAndBatchingChangesNothing) {
  const auto& [arch, type] = GetParam();
  const std::string path = fixture(arch + "_" + type, arch, type, shape_args(type) + " --seed 3");
  const Model m = Model::load(path);
  const std::vector<int32_t> a{11, 300, 5, 42, 42, 7, 199, 63};
  const std::vector<int32_t> b{1, 2, 3, 250, 17};
  const std::vector<int64_t> pa{0, 3, 7};
  const std::vector<int64_t> pb{4, 0};
  model::RunOptions opts;
  opts.threads = 2;
  const auto out = m.run({{a, pa}, {b, pb}}, opts);
  ASSERT_EQ(out.size(), 2u);
  ASSERT_EQ(out[0].rows, 3);
  ASSERT_EQ(out[0].cols, m.config().n_vocab);

  const auto ref = reference_logits(path, a, pa);
  ASSERT_EQ(ref.size(), 3u);
  for (size_t r = 0; r < ref.size(); ++r) {
    ASSERT_EQ(int64_t(ref[r].size()), out[0].cols);
    EXPECT_LT(rel_error(out[0].row(int64_t(r)), ref[r]), kTol)
        << arch << " " << type << " row " << r;
  }
  // Sequence b alone must give what it gave inside the batch.
  const auto alone = m.run({{b, pb}}, opts);
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t v = 0; v < out[1].cols; ++v)
      ASSERT_NEAR(alone[0].row(r)[v], out[1].row(r)[v], 1e-4f * (1 + std::abs(alone[0].row(r)[v])));
}

INSTANTIATE_TEST_SUITE_P(
    AllArchsAndTypes, ForwardVsReference,
    ::testing::Combine(::testing::Values("dream", "llada", "qwen2", "llama"),
                       ::testing::Values("F32", "F16", "BF16", "Q8_0", "Q4_0", "Q4_K", "Q6_K")),
    [](const auto& info) { return std::get<0>(info.param) + "_" + std::get<1>(info.param); });

TEST(ForwardVsReference, TiedOutputMixedQuantsAndVocabRows) {
  const std::string path =
      fixture("dream_tied_q4km", "dream", "Q4_K_M", shape_args("Q4_K") + " --tied --seed 5");
  const Model m = Model::load(path);
  EXPECT_TRUE(m.config().tied_output);
  const std::vector<int32_t> ids{3, 9, 27, 81, 243, 100};
  const std::vector<int32_t> letters{65, 66, 67, 300};
  model::RunOptions opts;
  opts.vocab_rows = letters;
  const auto out = m.run({{ids, {2, 5}}}, opts);
  ASSERT_EQ(out[0].cols, 4);
  const auto ref = reference_logits(path, ids, {2, 5}, "natural", 0, letters);
  for (size_t r = 0; r < 2; ++r) EXPECT_LT(rel_error(out[0].row(int64_t(r)), ref[r]), kTol);
  // The same rows of the full logits.
  const auto full = m.run({{ids, {2, 5}}}, model::RunOptions{});
  for (int64_t r = 0; r < 2; ++r)
    for (size_t k = 0; k < letters.size(); ++k)
      EXPECT_NEAR(out[0].row(r)[k], full[0].row(r)[letters[k]], 1e-4);
}

}  // namespace
}  // namespace meadow::model_test
