// `meadow-mind tokenize`, `hidden` and `model info` on a small random bert file (written here):
// [CLS]/[SEP] and token types, the hidden rows equal model::Encoder's, usage errors exit 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_run.hpp"
#include "gguf_writer.hpp"
#include "meadow/runtime/encoder.hpp"
#include "tiny_bert.hpp"

namespace {

using meadow::cli_test::CliResult;
using nlohmann::json;

CliResult run(const std::string& args) {
  return meadow::cli_test::run_cli(args, "", "/dev/null");
}

// Vocabulary: [PAD] [UNK] [CLS] [SEP] [MASK], then "red", "light", "is", "on", "##s".
const std::string& bert_fixture() {
  static const std::string path = [] {
    namespace g = meadow::gguf;
    const auto dir = std::filesystem::path(MEADOW_BINARY_DIR) / "cli_fixtures";
    std::filesystem::create_directories(dir);
    const std::string sp = "\xE2\x96\x81";
    const std::vector<std::string> tokens = {"[PAD]",   "[UNK]",    "[CLS]",      "[SEP]",
                                             "[MASK]",  sp + "red", sp + "light", sp + "is",
                                             sp + "on", "s"};
    std::vector<int32_t> types(tokens.size(), 1);
    for (int i = 0; i < 5; ++i) types[size_t(i)] = 3;
    const int64_t e = 16, ff = 32, ctx = 12;
    g::Writer w;
    w.add("general.architecture", g::make_string("bert"));
    w.add("bert.embedding_length", g::make_u32(e));
    w.add("bert.feed_forward_length", g::make_u32(ff));
    w.add("bert.block_count", g::make_u32(1));
    w.add("bert.attention.head_count", g::make_u32(2));
    w.add("bert.attention.layer_norm_epsilon", g::make_f32(1e-12f));
    w.add("tokenizer.ggml.model", g::make_string("bert"));
    w.add("tokenizer.ggml.tokens", g::make_strings(tokens));
    w.add("tokenizer.ggml.token_type", g::make_i32s(types));
    w.add("tokenizer.ggml.unknown_token_id", g::make_u32(1));
    w.add("tokenizer.ggml.cls_token_id", g::make_u32(2));
    w.add("tokenizer.ggml.seperator_token_id", g::make_u32(3));
    std::mt19937 rng(3);
    std::normal_distribution<float> d(0.0f, 0.3f);
    auto add = [&](const std::string& name, std::vector<uint64_t> dims, float mean) {
      uint64_t n = 1;
      for (auto k : dims) n *= k;
      std::vector<float> v(n);
      for (auto& x : v) x = mean + d(rng);
      w.add_tensor_f32(name, g::TensorType::F32, dims, v.data());
    };
    g::add_bert_one_layer_tensors(add, uint64_t(e), uint64_t(ff), uint64_t(ctx), tokens.size());
    const std::string out = (dir / "bert_tiny.gguf").string();
    w.write(out);
    return out;
  }();
  return path;
}

TEST(EncoderCommands, TokenizeGivesClsSepAndTokenTypes) {
  const CliResult r = run("tokenize --model " + bert_fixture() + " 'Red lights' --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["ids"], json({2, 5, 6, 9, 3}));  // [CLS] red light ##s [SEP]
  EXPECT_EQ(j["type_ids"], json({0, 0, 0, 0, 0}));
  const CliResult p =
      run("tokenize --model " + bert_fixture() + " 'red light' --pair 'is on' --json");
  ASSERT_EQ(p.code, 0) << p.err;
  const json q = json::parse(p.out);
  EXPECT_EQ(q["ids"], json({2, 5, 6, 3, 7, 8, 3}));
  EXPECT_EQ(q["type_ids"], json({0, 0, 0, 0, 1, 1, 1}));
}

TEST(EncoderCommands, HiddenRowsAreTheEncodersStates) {
  const CliResult r = run("hidden --model " + bert_fixture() +
                          " --text 'red light' --pair 'is on' --pool mean --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const json j = json::parse(r.out);
  ASSERT_EQ(j["hidden"].size(), 7u);
  const auto enc = meadow::model::Encoder::load(bert_fixture());
  const auto want = enc.encode({{{2, 5, 6, 3, 7, 8, 3}, {0, 0, 0, 0, 1, 1, 1}}}).at(0);
  for (int64_t row = 0; row < want.rows; ++row)
    for (int64_t k = 0; k < want.cols; ++k)
      EXPECT_FLOAT_EQ(j["hidden"][size_t(row)][size_t(k)].get<float>(), want.row(row)[k]);
  const auto pooled = meadow::model::mean_pool(want);
  ASSERT_EQ(j["pooled"].size(), pooled.size());
  for (size_t k = 0; k < pooled.size(); ++k)
    EXPECT_FLOAT_EQ(j["pooled"][k].get<float>(), pooled[k]);
  // The same input as ids and types.
  const CliResult ids =
      run("hidden --model " + bert_fixture() + " --ids 2,5,6,3,7,8,3 --types 0,0,0,0,1,1,1 --json");
  ASSERT_EQ(ids.code, 0) << ids.err;
  EXPECT_EQ(json::parse(ids.out)["hidden"], j["hidden"]);
  EXPECT_EQ(run("hidden --model " + bert_fixture() + " --text 'red light'").code, 0);
}

TEST(EncoderCommands, ModelInfoDescribesTheEncoder) {
  const CliResult r = run("model info --json " + bert_fixture());
  ASSERT_EQ(r.code, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["arch"], "bert");
  EXPECT_EQ(j["n_embd"], 16);
  EXPECT_EQ(j["n_ctx"], 12);
  EXPECT_EQ(j["n_types"], 2);
  EXPECT_EQ(j["tokenizer"]["model"], "bert");
  EXPECT_EQ(j["tokenizer"]["cls"]["text"], "[CLS]");
  EXPECT_EQ(run("model info " + bert_fixture()).code, 0);
}

TEST(EncoderCommands, UsageErrorsExitTwo) {
  EXPECT_EQ(run("logits --model " + bert_fixture() + " --text 'red'").code, 2);  // no logits
  EXPECT_EQ(run("hidden --model " + bert_fixture() + " --ids 2,99").code, 2);    // out of range
  EXPECT_EQ(run("hidden --model " + bert_fixture() + " --ids 2,5 --types 0").code, 2);
  EXPECT_EQ(run("hidden --model " + bert_fixture()).code, 2);  // no input
  EXPECT_EQ(run("hidden --model " + bert_fixture() + " --text x --pool max").code, 2);
  EXPECT_EQ(run("tokenize --model " + bert_fixture() + " x --lora " + bert_fixture()).code, 2);
  const std::string nano = std::string(MEADOW_SOURCE_DIR) + "/models/meadow-nano.gguf";
  EXPECT_EQ(run("tokenize --model " + nano + " x --pair y").code, 2);  // a decoder: no pairs
  EXPECT_EQ(run("hidden --model " + nano + " --text x").code, 2);      // not an encoder
}

}  // namespace
