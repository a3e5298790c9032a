// LoRA adapters (llama.cpp's adapter GGUF) on a fixture model: an adapted run equals the
// hand-merged model (float32 W + (alpha / r) B A) in uncached runs (the sgemm and the
// dot-product paths), prefix encoding and cached runs; every malformed adapter is one clear
// meadow::Error naming the file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gguf_quantize.hpp"
#include "gguf_writer.hpp"
#include "lora_fixtures.hpp"
#include "meadow/error.hpp"
#include "meadow/runtime/model.hpp"
#include "model_fixtures.hpp"

namespace meadow::lora_test {
namespace {

using model::Model;

// max |a - b| / max |b| over every logit of two results.
double rel_diff(const std::vector<model::Logits>& a, const std::vector<model::Logits>& b) {
  double diff = 0, scale = 0;
  for (size_t s = 0; s < b.size(); ++s) {
    EXPECT_EQ(a[s].data.size(), b[s].data.size());
    for (size_t i = 0; i < b[s].data.size(); ++i) {
      diff = std::max(diff, double(std::fabs(a[s].data[i] - b[s].data[i])));
      scale = std::max(scale, double(std::fabs(b[s].data[i])));
    }
  }
  return diff / std::max(scale, 1e-30);
}

std::string base_fixture(const std::string& type) {
  return model_test::fixture("lora_llama_" + type, "llama", type,
                             model_test::shape_args(type) + " --seed 11");
}

std::vector<int64_t> all_positions(int64_t from, int64_t to) {
  std::vector<int64_t> p;
  for (int64_t i = from; i < to; ++i) p.push_back(i);
  return p;
}

class LoraEqualsMerged : public ::testing::TestWithParam<std::string> {};

TEST_P(LoraEqualsMerged, UncachedAndCached) {
  const std::string type = GetParam();
  const std::string base = base_fixture(type);
  const std::string adapter = fixture_path("lora_" + type + "_adapter.gguf");
  const std::string merged = fixture_path("lora_" + type + "_merged.gguf");
  {
    const gguf::File f = gguf::File::open(base);
    const AdapterSpec spec = random_adapter(f, 4, 8.0f, 5);
    spec.write(adapter);
    write_merged(f, spec, merged);
  }
  const Model plain = Model::load(base);
  const Model adapted = Model::load(base, adapter);
  const Model reference = Model::load(merged);
  EXPECT_EQ(adapted.lora_path(), adapter);
  EXPECT_TRUE(plain.lora_path().empty());
  model::RunOptions o;
  o.threads = 2;

  // 12 tokens take the sgemm path of every matmul, 5 the dot-product path.
  const std::vector<int32_t> ids{3, 17, 250, 41, 8, 99, 300, 12, 64, 7, 150, 2};
  const std::vector<int32_t> few(ids.begin(), ids.begin() + 5);
  const std::vector<model::Sequence> batch{{ids, all_positions(0, 12)}, {few, all_positions(0, 5)}};
  const auto want = reference.run(batch, o);
  EXPECT_LT(rel_diff(adapted.run(batch, o), want), 2e-5) << type;
  // The adapter matters: without it the logits are far from the merged model's.
  EXPECT_GT(rel_diff(plain.run(batch, o), want), 1e-2) << type;

  // Prefix of 9 (sgemm) then suffixes of 3 (dot products) and, with a 4-token prefix, 8.
  for (int64_t p : {int64_t(9), int64_t(4)}) {
    const std::vector<int32_t> prefix(ids.begin(), ids.begin() + p);
    const std::vector<int32_t> suffix(ids.begin() + p, ids.end());
    const auto cache = adapted.encode_prefix(prefix, 2);
    const auto cached = adapted.run_cached(cache, {{suffix, all_positions(p, 12)}}, o);
    const auto full = reference.run({{ids, all_positions(p, 12)}}, o);
    EXPECT_LT(rel_diff(cached, full), 2e-5) << type << " prefix " << p;
  }
}

INSTANTIATE_TEST_SUITE_P(BaseTypes, LoraEqualsMerged, ::testing::Values("F32", "Q4_1", "Q8_0"));

// Alpha 0 is llama.cpp's "no scaling" (scale 1), not a zero adapter; the rank of each pair is
// its own.
TEST(Lora, AlphaZeroMeansScaleOne) {
  const std::string base = base_fixture("F32");
  const gguf::File f = gguf::File::open(base);
  AdapterSpec zero = random_adapter(f, 2, 0.0f, 9);
  AdapterSpec two = zero;  // alpha 2 at rank 2: scale 1 too
  two.set("adapter.lora.alpha", gguf::make_f32(2.0f));
  const std::string pz = fixture_path("lora_alpha0.gguf"), p2 = fixture_path("lora_alpha2.gguf");
  zero.write(pz);
  two.write(p2);
  model::RunOptions o;
  const std::vector<model::Sequence> batch{{{5, 6, 7}, {0, 1, 2}}};
  const auto a = Model::load(base, pz).run(batch, o);
  const auto b = Model::load(base, p2).run(batch, o);
  EXPECT_EQ(a[0].data, b[0].data);
  EXPECT_GT(rel_diff(Model::load(base).run(batch, o), b), 1e-3);
}

// A subset of projections (here only layer 1's v and ffn_down) is a valid adapter.
TEST(Lora, SomeProjectionsOnly) {
  const std::string base = base_fixture("F32");
  const gguf::File f = gguf::File::open(base);
  AdapterSpec spec = random_adapter(f, 3, 6.0f, 4);
  std::erase_if(spec.tensors, [](const AdapterTensor& t) {
    return !t.name.starts_with("blk.1.attn_v.") && !t.name.starts_with("blk.1.ffn_down.");
  });
  ASSERT_EQ(spec.tensors.size(), 4u);
  const std::string path = fixture_path("lora_subset.gguf");
  const std::string merged = fixture_path("lora_subset_merged.gguf");
  spec.write(path);
  write_merged(f, spec, merged);
  model::RunOptions o;
  const std::vector<model::Sequence> batch{{{9, 8, 7, 6, 5, 4, 3, 2, 1}, all_positions(0, 9)}};
  EXPECT_LT(rel_diff(Model::load(base, path).run(batch, o), Model::load(merged).run(batch, o)),
            2e-5);
}

// F16 and BF16 pairs (llama.cpp's converter writes F16 by default) load like F32 ones holding
// the same, already rounded, values.
TEST(Lora, HalfPrecisionPairs) {
  const std::string base = base_fixture("Q4_1");
  const gguf::File f = gguf::File::open(base);
  model::RunOptions o;
  const std::vector<model::Sequence> batch{{{4, 44, 144, 244, 3, 33, 133, 233, 2}, {0, 4, 8}}};
  for (const auto type : {gguf::TensorType::F16, gguf::TensorType::BF16}) {
    AdapterSpec spec = random_adapter(f, 4, 8.0f, 21);
    for (auto& t : spec.tensors) {  // round through the half type
      const auto bytes = gguf::quantize(type, t.data.data(), int64_t(t.data.size()));
      gguf::dequantize(type, bytes.data(), t.data.data(), int64_t(t.data.size()));
    }
    const std::string half = fixture_path(std::string("lora_") + gguf::type_name(type) + ".gguf");
    const std::string full =
        fixture_path(std::string("lora_") + gguf::type_name(type) + "_f32.gguf");
    spec.write(half, type);
    spec.write(full);
    EXPECT_EQ(Model::load(base, half).run(batch, o)[0].data,
              Model::load(base, full).run(batch, o)[0].data)
        << gguf::type_name(type);
  }
}

// ---- malformed adapters: each is one line naming the file and the problem ----

class BadAdapter : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = base_fixture("F32");
    const gguf::File f = gguf::File::open(base_);
    spec_ = random_adapter(f, 4, 8.0f, 3);
  }
  // Writes spec_ and expects loading it on the base to fail with `want` in the message.
  void expect_error(const std::string& name, const std::string& want) {
    const std::string path = fixture_path("lora_bad_" + name + ".gguf");
    spec_.write(path);
    try {
      Model::load(base_, path);
      ADD_FAILURE() << name << ": loaded without an error";
    } catch (const Error& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(want), std::string::npos) << msg;
      EXPECT_EQ(msg.rfind(path, 0), 0u) << "names the adapter first: " << msg;
      EXPECT_EQ(msg.find('\n'), std::string::npos) << "one line: " << msg;
    }
  }
  std::string base_;
  AdapterSpec spec_;
};

TEST_F(BadAdapter, ModelFileGivenAsAdapter) {
  try {
    Model::load(base_, base_);
    ADD_FAILURE() << "a model file loaded as an adapter";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not a LoRA adapter (no general.type"), std::string::npos)
        << e.what();
  }
}

TEST_F(BadAdapter, GeneralTypeIsNotAdapter) {
  spec_.set("general.type", gguf::make_string("model"));
  expect_error("type", "not an adapter: general.type is 'model'");
}

TEST_F(BadAdapter, AdapterTypeIsNotLora) {
  spec_.set("adapter.type", gguf::make_string("control_vector"));
  expect_error("adapter_type", "adapter.type is 'control_vector'; only 'lora'");
}

TEST_F(BadAdapter, AdapterTypeMissing) {
  spec_.erase_key("adapter.type");
  expect_error("adapter_type_missing", "no adapter.type");
}

TEST_F(BadAdapter, AlphaMissing) {
  spec_.erase_key("adapter.lora.alpha");
  expect_error("alpha_missing", "missing adapter.lora.alpha");
}

TEST_F(BadAdapter, AlphaNotFinite) {
  spec_.set("adapter.lora.alpha", gguf::make_f32(std::numeric_limits<float>::infinity()));
  expect_error("alpha_inf", "adapter.lora.alpha is inf");
}

TEST_F(BadAdapter, AlphaNotANumber) {
  spec_.set("adapter.lora.alpha", gguf::make_string("16"));
  expect_error("alpha_string", "adapter.lora.alpha");
}

TEST_F(BadAdapter, ArchitectureMismatch) {
  spec_.set("general.architecture", gguf::make_string("qwen2"));
  expect_error("arch", "an adapter for architecture 'qwen2', but " + base_ + " is 'llama'");
}

TEST_F(BadAdapter, ArchitectureMissing) {
  spec_.erase_key("general.architecture");
  expect_error("arch_missing", "an adapter for architecture (none given)");
}

TEST_F(BadAdapter, LoraAWithoutLoraB) {
  spec_.erase_tensor("blk.0.attn_k.weight.lora_b");
  expect_error("no_b", "'blk.0.attn_k.weight.lora_a' has no matching .lora_b");
}

TEST_F(BadAdapter, LoraBWithoutLoraA) {
  spec_.erase_tensor("blk.1.ffn_up.weight.lora_a");
  expect_error("no_a", "'blk.1.ffn_up.weight.lora_b' has no matching .lora_a");
}

TEST_F(BadAdapter, NameMatchesNoBaseTensor) {
  spec_.tensor("blk.1.attn_q.weight.lora_a").name = "blk.7.attn_q.weight.lora_a";
  spec_.tensor("blk.1.attn_q.weight.lora_b").name = "blk.7.attn_q.weight.lora_b";
  expect_error("no_base", "'blk.7.attn_q.weight.lora_a' matches no tensor of " + base_);
}

TEST_F(BadAdapter, BaseTensorThatCannotBeAdapted) {
  // output_norm.weight exists in the base but is a norm vector, not a projection.
  spec_.tensor("blk.0.attn_q.weight.lora_a").name = "output_norm.weight.lora_a";
  spec_.tensor("blk.0.attn_q.weight.lora_b").name = "output_norm.weight.lora_b";
  expect_error("norm", "'output_norm.weight' cannot be adapted");
}

TEST_F(BadAdapter, TensorWithoutLoraSuffix) {
  spec_.tensor("blk.0.attn_v.weight.lora_a").name = "blk.0.attn_v.weight";
  expect_error("suffix", "'blk.0.attn_v.weight' is neither a .lora_a nor a .lora_b");
}

TEST_F(BadAdapter, NoTensors) {
  spec_.tensors.clear();
  expect_error("empty", "holds no LoRA tensors");
}

TEST_F(BadAdapter, ShapeMismatchOfA) {
  // ffn_down takes 128 inputs (the feed-forward width); give A 64.
  AdapterTensor& a = spec_.tensor("blk.0.ffn_down.weight.lora_a");
  a.dims = {64, 4};
  a.data.resize(64 * 4);
  expect_error("shape_a",
               "shape mismatch: 'blk.0.ffn_down.weight.lora_a' is [64, 4], expected [128, rank]");
}

TEST_F(BadAdapter, ShapeMismatchOfB) {
  AdapterTensor& b = spec_.tensor("blk.0.attn_k.weight.lora_b");  // 32 outputs (2 kv heads)
  b.dims = {4, 64};
  b.data.resize(4 * 64);
  expect_error("shape_b",
               "shape mismatch: 'blk.0.attn_k.weight.lora_b' is [4, 64], expected [rank, 32]");
}

TEST_F(BadAdapter, ThreeDimensionalA) {
  AdapterTensor& a = spec_.tensor("blk.0.attn_q.weight.lora_a");
  a.dims = {64, 2, 2};
  expect_error("dims3", "shape mismatch: 'blk.0.attn_q.weight.lora_a' is [64, 2, 2]");
}

TEST_F(BadAdapter, RankMismatchBetweenAAndB) {
  AdapterTensor& b = spec_.tensor("blk.1.attn_output.weight.lora_b");
  b.dims = {3, 64};
  b.data.resize(3 * 64);
  expect_error("rank",
               "rank mismatch: 'blk.1.attn_output.weight.lora_a' has rank 4, "
               "'blk.1.attn_output.weight.lora_b' rank 3");
}

TEST_F(BadAdapter, NonFiniteValue) {
  spec_.tensor("blk.1.ffn_gate.weight.lora_b").data[17] = std::nanf("");
  expect_error("nan", "'blk.1.ffn_gate.weight.lora_b' holds a non-finite value");
}

TEST_F(BadAdapter, MissingFile) {
  EXPECT_THROW(Model::load(base_, fixture_path("no_such_adapter.gguf")), Error);
}

}  // namespace
}  // namespace meadow::lora_test
