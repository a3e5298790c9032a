// `hidden`: the last hidden states of a BERT-family encoder (meadow/encoder.hpp), the encoder's
// counterpart of `logits`, for checks against other implementations.
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "meadow/encoder.hpp"
#include "meadow/error.hpp"
#include "meadow/gguf.hpp"
#include "meadow/mind.hpp"
#include "meadow/tokenizer.hpp"

namespace meadow::cli {
namespace {

using nlohmann::json;

struct HiddenArgs {
  std::string model, text, pair, ids, types, pool;
  int threads = 2;
  bool json = false;
};

std::vector<int32_t> int_list(const std::string& s, const char* what) {
  std::vector<int32_t> out;
  size_t i = 0;
  while (i < s.size()) {
    size_t j = s.find(',', i);
    if (j == std::string::npos) j = s.size();
    const std::string item = s.substr(i, j - i);
    try {
      size_t used = 0;
      const long long v = std::stoll(item, &used);
      if (used != item.size() || v < INT32_MIN || v > INT32_MAX) throw std::out_of_range(item);
      out.push_back(int32_t(v));
    } catch (const std::exception&) {
      throw Error(std::string(what) + ": '" + item + "' is not a 32-bit integer");
    }
    i = j + 1;
  }
  if (out.empty()) throw Error(std::string(what) + ": empty list");
  return out;
}

void run_hidden(const HiddenArgs& a, bool has_pair) {
  const model::Encoder enc = model::Encoder::load(resolve_model(a.model));
  model::EncoderInput in;
  if (a.ids.empty()) {
    const Tokenizer tok = Tokenizer::from_gguf(enc.file());
    SegmentIds s = tok.encode_segments(
        a.text, has_pair ? std::optional<std::string_view>(a.pair) : std::nullopt);
    in.tokens = std::move(s.ids);
    in.types = std::move(s.types);
  } else {
    in.tokens = int_list(a.ids, "--ids");
    if (!a.types.empty()) in.types = int_list(a.types, "--types");
  }
  if (in.types.empty()) in.types.assign(in.tokens.size(), 0);
  const model::Hidden h = enc.encode({in}, {.threads = a.threads}).at(0);
  std::vector<float> pooled;
  if (a.pool == "mean") pooled = model::mean_pool(h);
  if (a.pool == "cls") pooled.assign(h.row(0), h.row(0) + h.cols);
  if (a.json) {
    json rows = json::array();
    for (int64_t r = 0; r < h.rows; ++r)
      rows.push_back(std::vector<float>(h.row(r), h.row(r) + h.cols));
    json j{
        {"arch", "bert"}, {"ids", in.tokens}, {"type_ids", in.types}, {"hidden", std::move(rows)}};
    if (!a.pool.empty()) j["pooled"] = pooled;
    std::printf("%s\n", j.dump().c_str());
    return;
  }
  for (int64_t r = 0; r < h.rows; ++r) {
    double ss = 0;
    for (int64_t k = 0; k < h.cols; ++k) ss += double(h.row(r)[k]) * h.row(r)[k];
    std::printf("position %lld: token %d (type %d), |h| %.4f, h[0..3] %.4f %.4f %.4f %.4f\n",
                (long long)r, in.tokens[size_t(r)], in.types[size_t(r)], std::sqrt(ss), h.row(r)[0],
                h.row(r)[1], h.row(r)[2], h.row(r)[3]);
  }
  if (!pooled.empty()) std::printf("%s pooled: %zu values\n", a.pool.c_str(), pooled.size());
}

}  // namespace

void add_encoder_commands(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "hidden",
      "Last hidden states of a BERT-family encoder (bert GGUF): one row per token of "
      "[CLS] text [SEP] (--pair: then pair [SEP], token type 1)");
  auto a = std::make_shared<HiddenArgs>();
  add_model_option(cmd, a->model, true);
  auto* text = cmd->add_option("--text", a->text, "Text, tokenized with the model's vocabulary");
  auto* pair = cmd->add_option("--pair", a->pair, "A second segment after the text");
  auto* ids = cmd->add_option("--ids", a->ids, "Comma-separated token ids instead of --text");
  auto* types = cmd->add_option("--types", a->types, "With --ids: comma-separated token types");
  text->excludes(ids);
  pair->needs(text);
  types->needs(ids);
  cmd->add_option("--pool", a->pool, "Also print the sentence embedding: mean or cls")
      ->check(CLI::IsMember({"mean", "cls"}));
  cmd->add_option("--threads", a->threads, "Worker threads")
      ->check(CLI::Range(1, model::kMaxThreads));
  cmd->add_flag("--json", a->json, "Print one JSON object");
  cmd->callback([a, text, ids, pair] {
    if (text->count() == 0 && ids->count() == 0) throw Error("hidden: give --text or --ids");
    run_hidden(*a, pair->count() > 0);
  });
}

}  // namespace meadow::cli
