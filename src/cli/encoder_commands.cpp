// `hidden`: the last hidden states of a BERT-family encoder (meadow/runtime/encoder.hpp), the
// encoder's counterpart of `logits`, for checks against other implementations; and `model info` of
// one.
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "meadow/error.hpp"
#include "meadow/mind.hpp"
#include "meadow/runtime/encoder.hpp"
#include "meadow/runtime/gguf.hpp"
#include "meadow/runtime/tokenizer.hpp"
#include "util/printable.hpp"

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

const char* pooling_name(model::Pooling p) {
  switch (p) {
    case model::Pooling::Mean:
      return "mean";
    case model::Pooling::Cls:
      return "cls";
    case model::Pooling::None:
      break;
  }
  return "none";
}

json special(const Tokenizer& t, std::optional<int32_t> id) {
  if (!id) return nullptr;
  return json{{"id", *id}, {"text", t.token(*id)}};
}

}  // namespace

bool encoder_info(const std::string& path, bool as_json) {
  if (!model::is_encoder(gguf::File::open(path))) return false;
  const model::Encoder enc = model::Encoder::load(path);
  const model::EncoderConfig& c = enc.config();
  const Tokenizer tok = Tokenizer::from_gguf(enc.file());
  uint64_t params = 0;
  for (const auto& t : enc.file().tensors()) params += t.n_elements();
  const json j{{"path", path},
               {"file_bytes", enc.file().file_size()},
               {"arch", "bert"},
               {"name", enc.file().get_string("general.name", "")},
               {"n_embd", c.n_embd},
               {"n_layer", c.n_layer},
               {"n_head", c.n_head},
               {"head_dim", c.head_dim},
               {"n_ff", c.n_ff},
               {"n_vocab", c.n_vocab},
               {"n_ctx", c.n_ctx},
               {"n_types", c.n_types},
               {"norm_eps", c.norm_eps},
               {"pooling", pooling_name(c.pooling)},
               {"parameters", params},
               {"tensors", enc.file().tensors().size()},
               {"tokenizer",
                {{"size", tok.size()},
                 {"model", tok.model()},
                 {"cls", special(tok, tok.cls_id())},
                 {"sep", special(tok, tok.sep_id())},
                 {"pad", special(tok, tok.pad_id())},
                 {"unk", special(tok, tok.unk_id())},
                 {"mask", special(tok, tok.mask_id())}}}};
  if (as_json) {
    std::printf("%s\n", j.dump(-1, ' ', false, json::error_handler_t::replace).c_str());
    return true;
  }
  std::printf("%s\n  encoder     bert (%s), %.3f M parameters, %zu tensors, pooling %s\n",
              util::printable(path).c_str(), util::printable(j["name"].get<std::string>()).c_str(),
              double(params) / 1e6, enc.file().tensors().size(), pooling_name(c.pooling));
  std::printf(
      "  sizes       embd %lld, layers %lld, heads %lld (dim %lld), ffn %lld, vocab %lld, "
      "positions %lld, token types %lld\n",
      (long long)c.n_embd, (long long)c.n_layer, (long long)c.n_head, (long long)c.head_dim,
      (long long)c.n_ff, (long long)c.n_vocab, (long long)c.n_ctx, (long long)c.n_types);
  std::printf("  tokenizer   WordPiece, %d tokens\n", tok.size());
  return true;
}

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
