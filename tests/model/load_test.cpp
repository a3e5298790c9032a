// Loading: the configuration read from metadata, and one clear error for each kind of bad
// file (truncated, unknown architecture, missing tensor, wrong shape, bad token ids).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "gguf_writer.hpp"
#include "meadow/error.hpp"
#include "meadow/runtime/model.hpp"
#include "model_fixtures.hpp"

namespace meadow::model_test {
namespace {

using model::Model;

std::string load_error(const std::string& path) {
  try {
    Model::load(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// Rewrites a fixture through the C++ writer, letting the caller edit metadata and tensors.
std::string rewrite(const std::string& src, const std::string& name,
                    const std::function<bool(gguf::KeyValue&)>& keep_kv,
                    const std::function<bool(const gguf::TensorInfo&, gguf::Writer&)>& keep_t) {
  const gguf::File f = gguf::File::open(src);
  gguf::Writer w;
  for (gguf::KeyValue kv : f.metadata())
    if (keep_kv(kv)) w.add(kv.key, kv.value);
  for (const auto& t : f.tensors())
    if (keep_t(t, w)) w.add_tensor(t.name, t.type, t.dims, t.data, t.nbytes);
  const std::string out = std::string(MEADOW_BINARY_DIR) + "/model_fixtures/" + name + ".gguf";
  w.write(out);
  return out;
}

const auto keep_all_kv = [](gguf::KeyValue&) { return true; };
const auto keep_all_t = [](const gguf::TensorInfo&, gguf::Writer&) { return true; };

std::string base() {
  return fixture("dream_F32", "dream", "F32", shape_args("F32") + " --seed 3");
}

TEST(ModelLoad, ConfigFromMetadata) {
  const Model d = Model::load(base());
  const auto& c = d.config();
  EXPECT_EQ(c.arch, model::Arch::Dream);
  EXPECT_EQ(c.n_embd, 64);
  EXPECT_EQ(c.n_layer, 2);
  EXPECT_EQ(c.n_head, 4);
  EXPECT_EQ(c.n_head_kv, 2);
  EXPECT_EQ(c.head_dim, 16);
  EXPECT_EQ(c.n_ff, 128);
  EXPECT_EQ(c.n_vocab, 320);
  EXPECT_FALSE(c.causal);
  EXPECT_TRUE(c.shift_logits);
  EXPECT_TRUE(c.qkv_bias);
  EXPECT_FALSE(c.tied_output);
  EXPECT_GE(c.mask_id, 0);
  EXPECT_NEAR(c.norm_eps, 1e-6, 1e-12);

  const Model l =
      Model::load(fixture("llama_F32", "llama", "F32", shape_args("F32") + " --seed 3"));
  EXPECT_TRUE(l.config().causal);
  EXPECT_FALSE(l.config().shift_logits);
  EXPECT_FALSE(l.config().qkv_bias);
  EXPECT_EQ(l.config().mask_id, -1);
  const Model ld =
      Model::load(fixture("llada_F32", "llada", "F32", shape_args("F32") + " --seed 3"));
  EXPECT_FALSE(ld.config().causal);
  EXPECT_FALSE(ld.config().shift_logits);
}

TEST(ModelLoad, TruncatedFileIsOneClearError) {
  const std::string src = base();
  const std::string out = std::string(MEADOW_BINARY_DIR) + "/model_fixtures/truncated.gguf";
  std::filesystem::copy_file(src, out, std::filesystem::copy_options::overwrite_existing);
  std::filesystem::resize_file(out, std::filesystem::file_size(src) - 1000);
  const std::string msg = load_error(out);
  EXPECT_NE(msg.find("truncated.gguf"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos);
}

TEST(ModelLoad, UnknownArchitecture) {
  const std::string out = rewrite(
      base(), "wrong_arch",
      [](gguf::KeyValue& kv) {
        if (kv.key == "general.architecture") kv.value = gguf::make_string("gpt2");
        return true;
      },
      keep_all_t);
  const std::string msg = load_error(out);
  EXPECT_NE(msg.find("unsupported architecture 'gpt2'"), std::string::npos) << msg;
}

TEST(ModelLoad, MissingTensor) {
  const std::string out = rewrite(
      base(), "missing_tensor", keep_all_kv,
      [](const gguf::TensorInfo& t, gguf::Writer&) { return t.name != "blk.1.ffn_up.weight"; });
  const std::string msg = load_error(out);
  EXPECT_NE(msg.find("missing tensor blk.1.ffn_up.weight"), std::string::npos) << msg;
}

TEST(ModelLoad, WrongShape) {
  const std::string out =
      rewrite(base(), "wrong_shape", keep_all_kv, [](const gguf::TensorInfo& t, gguf::Writer& w) {
        if (t.name != "blk.0.attn_k.weight") return true;
        std::vector<float> z(64 * 16, 0.5f);
        w.add_tensor_f32(t.name, gguf::TensorType::F32, {64, 16}, z.data());
        return false;
      });
  const std::string msg = load_error(out);
  EXPECT_NE(msg.find("blk.0.attn_k.weight has shape [64, 16], expected [64, 32]"),
            std::string::npos)
      << msg;
}

TEST(ModelLoad, MissingHyperParameter) {
  const std::string out = rewrite(
      base(), "missing_key", [](gguf::KeyValue& kv) { return kv.key != "dream.block_count"; },
      keep_all_t);
  const std::string msg = load_error(out);
  EXPECT_NE(msg.find("dream.block_count"), std::string::npos) << msg;
}

TEST(ModelRun, BadRequestsThrow) {
  const Model m = Model::load(base());
  EXPECT_THROW(m.run({{{1, 2, 320}, {0}}}, {}), Error);  // token id outside vocab
  EXPECT_THROW(m.run({{{}, {}}}, {}), Error);            // empty sequence
  EXPECT_THROW(m.run({{{1, 2}, {2}}}, {}), Error);       // position past the end
  model::RunOptions o;
  o.vocab_rows = {5, 400};
  EXPECT_THROW(m.run({{{1, 2}, {1}}}, o), Error);
}

}  // namespace
}  // namespace meadow::model_test
