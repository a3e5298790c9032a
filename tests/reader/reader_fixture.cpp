#include "reader_fixture.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <random>

#include "gguf_writer.hpp"
#include "tiny_bert.hpp"

namespace meadow::reader_test {

std::string tiny_path(const std::string& name) {
  const auto dir = std::filesystem::path(MEADOW_BINARY_DIR) / "reader_fixtures";
  std::filesystem::create_directories(dir);
  return (dir / (std::to_string(::getpid()) + "_" + name + ".gguf")).string();
}

std::string write_tiny_reader(const std::string& path, const TinyReader& spec) {
  namespace g = meadow::gguf;
  auto skipped = [&](const std::string& name) {
    return std::find(spec.skip.begin(), spec.skip.end(), name) != spec.skip.end();
  };
  const std::string sp = "\xE2\x96\x81";
  std::vector<std::string> tokens = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};
  for (const char* w :
       {"if",   "the",  "kettle", "whistles", "choose",      "a",   "b",  "c",   "otherwise",
        "it",   "is",   "above",  "water",    "boils",       "and", "or", "fog", "smoke",
        "rain", "30",   "35",     "degrees",  "temperature", ":",   ",",  ".",   "sound",
        "horn", "keep", "lamp",   "stop",     "go",          "wait"})
    tokens.push_back(sp + w);
  tokens.push_back("s");  // "##s"
  std::vector<int32_t> types(tokens.size(), 1);
  for (int i = 0; i < 5; ++i) types[size_t(i)] = 3;
  const int64_t e = 16, ff = 32, ctx = 64;

  g::Writer w;
  w.add("general.architecture", g::make_string("bert"));
  w.add("bert.context_length", g::make_u32(ctx));
  w.add("bert.embedding_length", g::make_u32(e));
  w.add("bert.feed_forward_length", g::make_u32(ff));
  w.add("bert.block_count", g::make_u32(1));
  w.add("bert.attention.head_count", g::make_u32(2));
  w.add("bert.attention.layer_norm_epsilon", g::make_f32(1e-12f));
  w.add("bert.pooling_type", g::make_u32(1));
  w.add("tokenizer.ggml.model", g::make_string("bert"));
  w.add("tokenizer.ggml.tokens", g::make_strings(tokens));
  w.add("tokenizer.ggml.token_type", g::make_i32s(types));
  w.add("tokenizer.ggml.token_type_count", g::make_u32(2));
  w.add("tokenizer.ggml.unknown_token_id", g::make_u32(1));
  w.add("tokenizer.ggml.cls_token_id", g::make_u32(2));
  w.add("tokenizer.ggml.seperator_token_id", g::make_u32(3));
  auto meta = [&](const std::string& key, g::Value v) {
    if (!skipped(key)) w.add(key, std::move(v));
  };
  meta("reader.version", g::make_u32(1));
  meta("reader.judge", g::make_string(spec.judge));
  const bool per_rule = spec.reading == "rule";
  meta("reader.reading", g::make_string(spec.reading));
  meta("reader.query_format", g::make_string("{letter}: {text}"));
  meta("reader.listing_separator", g::make_string("; "));
  meta("reader.tags", per_rule ? g::make_strings({"O", "B", "I", "AND", "OR", "PRON"})
                               : g::make_strings({"O", "B", "I", "AND", "OR", "PRON", "ANTE"}));
  meta("reader.ops", g::make_strings({"none", ">", ">=", "<", "<=", "in"}));
  meta("reader.judge_tags", g::make_strings({"O", "T1", "T2", "V"}));
  meta("reader.look.head_count", g::make_u32(2));
  meta("reader.look_norm.epsilon", g::make_f32(1e-5f));
  meta("reader.max_tokens", g::make_u32(spec.max_tokens));

  std::mt19937 rng(11);
  std::normal_distribution<float> d(0.0f, 0.3f);
  auto add = [&](const std::string& name, std::vector<uint64_t> dims, float mean,
                 const std::vector<float>& bias = {}) {
    if (skipped(name)) return;
    uint64_t n = 1;
    for (auto k : dims) n *= k;
    std::vector<float> v(n);
    for (auto& x : v) x = mean + d(rng);
    for (size_t i = 0; i < bias.size(); ++i) v[i] += bias[i];
    w.add_tensor_f32(name, g::TensorType::F32, dims, v.data());
  };
  const auto E = uint64_t(e);
  g::add_bert_one_layer_tensors(add, E, uint64_t(ff), uint64_t(ctx), tokens.size());
  // The heads, in export.py's names and shapes (dims in ggml order: columns first).
  if (per_rule) {
    add("reader.rule_tag.weight", {E, 6}, 0);
    add("reader.rule_tag.bias", {6}, 0,
        std::vector<float>(spec.tag_bias.begin(), spec.tag_bias.begin() + 6));
    add("reader.ante.weight", {E, 1}, 0);
    add("reader.ante.bias", {1}, 0, {spec.ante_bias});
    add("reader.link_q.weight", {3 * E, E}, 0);
    add("reader.link_q.bias", {E}, 0);
    add("reader.link_k.weight", {E, E}, 0);
    add("reader.link_k.bias", {E}, 0);
    add("reader.rule_default.weight", {E, 1}, 0);
    add("reader.rule_default.bias", {1}, 0, {spec.default_bias});
  } else {
    add("reader.tag.weight", {E, 7}, 0);
    add("reader.tag.bias", {7}, 0, std::vector<float>(spec.tag_bias.begin(), spec.tag_bias.end()));
    add("reader.default.weight", {E, 1}, 0);
    add("reader.default.bias", {1}, 0, {spec.default_bias});
  }
  add("reader.op.weight", {E, 6}, 0);
  add("reader.op.bias", {6}, 0);
  add("reader.look.in_proj.weight", {E, 3 * E}, 0);
  add("reader.look.in_proj.bias", {3 * E}, 0);
  add("reader.look.out_proj.weight", {E, E}, 0);
  add("reader.look.out_proj.bias", {E}, 0);
  add("reader.look_norm.weight", {E}, 1);
  add("reader.look_norm.bias", {E}, 0);
  add("reader.judge.fc1.weight", {5 * E - (spec.wrong_fc1_shape ? 1 : 0), E}, 0);
  add("reader.judge.fc1.bias", {E}, 0);
  add("reader.judge.fc2.weight", {E, 1}, 0);
  add("reader.judge.fc2.bias", {1}, 0);
  add("reader.thresholds.weight", {E, 3}, 0);
  add("reader.thresholds.bias", {3}, 0);
  add("reader.value.weight", {2 * E, 1}, 0);
  add("reader.value.bias", {1}, 0);
  w.write(path);
  return path;
}

}  // namespace meadow::reader_test
