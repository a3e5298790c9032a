// `model info`, `tokenize` and `logits`: inspect a GGUF model and check it against other
// implementations.
#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
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
#include "meadow/runtime/model.hpp"
#include "meadow/runtime/tokenizer.hpp"
#include "util/printable.hpp"

namespace meadow::cli {
namespace {

using nlohmann::json;

// Comma-separated integers, each of which must fit T: a static_cast would wrap 4294967296 to
// token 0.
template <class T>
std::vector<T> parse_list(const std::string& s, const char* what) {
  std::vector<T> out;
  size_t i = 0;
  while (i < s.size()) {
    size_t j = s.find(',', i);
    if (j == std::string::npos) j = s.size();
    const std::string item = s.substr(i, j - i);
    long long v = 0;
    bool too_big = false;  // past 64 bits
    try {
      size_t used = 0;
      v = std::stoll(item, &used);
      if (used != item.size()) throw std::invalid_argument(item);
    } catch (const std::out_of_range&) {
      too_big = true;
    } catch (const std::exception&) {
      throw Error(std::string(what) + ": '" + item + "' is not an integer");
    }
    if (too_big || v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max())
      throw Error(std::string(what) + ": " + item + " is out of range [" +
                  std::to_string(std::numeric_limits<T>::min()) + ", " +
                  std::to_string(std::numeric_limits<T>::max()) + "]");
    out.push_back(static_cast<T>(v));
    i = j + 1;
  }
  if (out.empty()) throw Error(std::string(what) + ": empty list");
  return out;
}

std::optional<Tokenizer> try_tokenizer(const gguf::File& f, std::string* why) {
  try {
    return Tokenizer::from_gguf(f);
  } catch (const Error& e) {
    *why = e.what();
    return std::nullopt;
  }
}

json special(const Tokenizer& t, std::optional<int32_t> id) {
  if (!id || *id < 0 || *id >= t.size()) return nullptr;
  return json{{"id", *id}, {"text", t.token(*id)}};
}

json model_info(const std::string& path) {
  const model::Model m = model::Model::load(path);
  const gguf::File& f = m.file();
  const model::Config& c = m.config();
  std::map<std::string, std::pair<uint64_t, uint64_t>> types;  // name -> (count, bytes)
  for (const auto& t : f.tensors()) {
    auto& e = types[gguf::type_name(t.type)];
    e.first += 1;
    e.second += t.nbytes;
  }
  json j{{"path", path},
         {"file_bytes", f.file_size()},
         {"gguf_version", f.version()},
         {"arch", model::arch_name(c.arch)},
         {"name", f.get_string("general.name", "")},
         {"n_embd", c.n_embd},
         {"n_layer", c.n_layer},
         {"n_head", c.n_head},
         {"n_head_kv", c.n_head_kv},
         {"head_dim", c.head_dim},
         {"n_ff", c.n_ff},
         {"n_vocab", c.n_vocab},
         {"n_ctx", c.n_ctx},
         {"rope_base", c.rope_base},
         {"norm_eps", c.norm_eps},
         {"causal", c.causal},
         {"shift_logits", c.shift_logits},
         {"tied_output", c.tied_output},
         {"qkv_bias", c.qkv_bias},
         {"mask_id", c.mask_id},
         {"parameters", model::parameter_count(f)},
         {"tensors", f.tensors().size()}};
  json th = json::object();
  for (const auto& [name, e] : types) th[name] = {{"count", e.first}, {"bytes", e.second}};
  j["tensor_types"] = th;
  std::string why;
  if (auto tok = try_tokenizer(f, &why)) {
    j["tokenizer"] = {{"size", tok->size()},
                      {"pre", tok->pre()},
                      {"fold_case", tok->fold_case()},
                      {"bos", special(*tok, tok->bos_id())},
                      {"eos", special(*tok, tok->eos_id())},
                      {"pad", special(*tok, tok->pad_id())},
                      {"mask", special(*tok, tok->mask_id())},
                      {"eot", special(*tok, tok->eot_id())},
                      {"add_bos", tok->add_bos()},
                      {"chat_template", tok->chat_template_name()}};
  } else {
    j["tokenizer"] = {{"error", why}};
  }
  return j;
}

// The text of a string field, control bytes escaped: names and token texts come from the model
// file and must not drive the terminal.
std::string shown(const json& v) {
  return util::printable(v.get<std::string>());
}

void print_info(const json& j) {
  std::printf("%s\n", shown(j["path"]).c_str());
  std::printf("  file        %.1f MiB (GGUF v%d), %llu tensors, %.3f M parameters\n",
              double(j["file_bytes"].get<uint64_t>()) / (1 << 20), j["gguf_version"].get<int>(),
              (unsigned long long)j["tensors"].get<uint64_t>(),
              double(j["parameters"].get<uint64_t>()) / 1e6);
  const std::string name = shown(j["name"]);
  std::printf("  arch        %s%s, %s, %s logits\n", shown(j["arch"]).c_str(),
              name.empty() ? "" : (" (" + name + ")").c_str(),
              j["causal"].get<bool>() ? "causal" : "bidirectional",
              j["shift_logits"].get<bool>() ? "shifted" : "unshifted");
  std::printf(
      "  sizes       embd %lld, layers %lld, heads %lld (kv %lld, dim %lld), ffn %lld, "
      "vocab %lld, ctx %lld\n",
      j["n_embd"].get<long long>(), j["n_layer"].get<long long>(), j["n_head"].get<long long>(),
      j["n_head_kv"].get<long long>(), j["head_dim"].get<long long>(), j["n_ff"].get<long long>(),
      j["n_vocab"].get<long long>(), j["n_ctx"].get<long long>());
  std::printf("  rope base   %g, rms eps %g, output %s, q/k/v bias %s, mask id %d\n",
              j["rope_base"].get<double>(), j["norm_eps"].get<double>(),
              j["tied_output"].get<bool>() ? "tied" : "untied",
              j["qkv_bias"].get<bool>() ? "yes" : "no", j["mask_id"].get<int>());
  std::printf("  types      ");
  for (const auto& [name, e] : j["tensor_types"].items())
    std::printf(" %s x%llu (%.1f MiB)", name.c_str(),
                (unsigned long long)e["count"].get<uint64_t>(),
                double(e["bytes"].get<uint64_t>()) / (1 << 20));
  std::printf("\n");
  const json& t = j["tokenizer"];
  if (t.contains("error")) {
    std::printf("  tokenizer   unavailable: %s\n", shown(t["error"]).c_str());
    return;
  }
  std::printf("  tokenizer   %d tokens, pre %s%s, chat template %s\n", t["size"].get<int>(),
              shown(t["pre"]).c_str(), t["fold_case"].get<bool>() ? ", case folded" : "",
              shown(t["chat_template"]).c_str());
  for (const char* k : {"bos", "eos", "pad", "mask", "eot"})
    if (!t[k].is_null())
      std::printf("  %-11s %d %s\n", k, t[k]["id"].get<int>(), shown(t[k]["text"]).c_str());
}

std::vector<int32_t> tokenize(const gguf::File& f, const std::string& text) {
  const Tokenizer tok = Tokenizer::from_gguf(f);
  std::vector<int32_t> ids;
  if (tok.add_bos() && tok.bos_id()) ids.push_back(*tok.bos_id());
  const auto body = tok.encode(text);
  ids.insert(ids.end(), body.begin(), body.end());
  return ids;
}

struct LogitsArgs {
  std::string model, lora, text, ids, positions, rows;
  int64_t prefix = 0;
  bool no_cache = false;
  int threads = 2;
  bool json = false;
};

void run_logits(const LogitsArgs& a) {
  const model::Model m = model::Model::load(resolve_model(a.model), a.lora);
  const std::vector<int32_t> ids =
      a.ids.empty() ? tokenize(m.file(), a.text) : parse_list<int32_t>(a.ids, "--ids");
  const int64_t n = int64_t(ids.size());
  if (a.prefix < 0 || a.prefix >= n)
    throw Error("--prefix must be in [0, " + std::to_string(n) + ")");
  std::vector<int64_t> positions;
  if (a.positions.empty())
    for (int64_t p = a.prefix; p < n; ++p) positions.push_back(p);
  else
    positions = parse_list<int64_t>(a.positions, "--positions");
  model::RunOptions opts;
  opts.threads = a.threads;
  if (!a.rows.empty()) opts.vocab_rows = parse_list<int32_t>(a.rows, "--rows");

  std::vector<model::Logits> out;
  if (a.prefix == 0) {
    out = m.run({{ids, positions}}, opts);
  } else if (a.no_cache) {
    out = m.run({{ids, positions}}, opts, model::Mask::Prefix, a.prefix);
  } else {
    const auto cache = m.encode_prefix(std::span(ids).first(size_t(a.prefix)), a.threads);
    std::vector<int32_t> suffix(ids.begin() + a.prefix, ids.end());
    out = m.run_cached(cache, {{suffix, positions}}, opts);
  }
  const model::Logits& l = out[0];
  if (a.json) {
    json j{{"arch", model::arch_name(m.config().arch)},
           {"shift_logits", m.config().shift_logits},
           {"ids", ids},
           {"positions", positions},
           {"prefix", a.prefix},
           {"cached", a.prefix > 0 && !a.no_cache}};
    if (!m.lora_path().empty()) j["lora"] = m.lora_path();
    if (!opts.vocab_rows.empty()) j["rows"] = opts.vocab_rows;
    json rows = json::array();
    for (int64_t r = 0; r < l.rows; ++r)
      rows.push_back(std::vector<float>(l.row(r), l.row(r) + l.cols));
    j["logits"] = std::move(rows);
    std::printf("%s\n", j.dump().c_str());
    return;
  }
  for (int64_t r = 0; r < l.rows; ++r) {
    const float* row = l.row(r);
    const int64_t best = std::max_element(row, row + l.cols) - row;
    const int64_t id = opts.vocab_rows.empty() ? best : opts.vocab_rows[size_t(best)];
    std::printf("position %lld: argmax %lld (%.4f)\n", (long long)positions[size_t(r)],
                (long long)id, row[best]);
  }
}

}  // namespace

static void print_model_list(bool as_json) {
  const auto listing = list_models(ModelSearch::from_environment());
  if (as_json) {
    json all = json::array();
    for (const auto& l : listing)
      all.push_back({{"name", l.model.name},
                     {"present", l.path.has_value()},
                     {"path", l.path ? json(*l.path) : json()},
                     {"readable", l.path.has_value() && l.problem.empty()},
                     {"problem", l.problem.empty() ? json() : json(l.problem)},
                     {"embedded", l.model.embedded},
                     {"description", l.model.description},
                     {"source", l.model.source}});
    std::printf("%s\n", all.dump().c_str());
    return;
  }
  for (const auto& l : listing) {
    std::printf("%-14s %s\n  %s\n", l.model.name.c_str(), l.model.description.c_str(),
                l.path ? l.path->c_str() : ("absent (" + l.model.source + ")").c_str());
    if (!l.problem.empty()) std::printf("  unreadable: %s\n", util::printable(l.problem).c_str());
  }
  if (const auto cache = ModelSearch::from_environment().cache_dir())
    std::printf("cache dir: %s\n", cache->c_str());
}

CLI::Option* add_model_option(CLI::App* app, std::string& model, bool required) {
  auto* o = app->add_option("--model", model,
                            "GGUF model: a path or a name (meadow-mind model list); default: "
                            "resolved as DESIGN.md orders");
  o->check(CLI::Validator(
      [](const std::string& v) { return v.empty() ? std::string("empty model path") : ""; },
      "NAME|PATH"));
  if (required) o->required();
  return o;
}

CLI::Option* add_lora_option(CLI::App* app, std::string& lora) {
  auto* o = app->add_option("--lora", lora,
                            "LoRA adapter GGUF (llama.cpp's adapter convention) applied on top "
                            "of the model");
  o->check(CLI::Validator(
      [](const std::string& v) { return v.empty() ? std::string("empty adapter path") : ""; },
      "FILE"));
  return o;
}

CLI::Option* add_float_recheck_option(CLI::App* app, double& margin) {
  return app
      ->add_option("--float-recheck", margin,
                   "models whose passes use the integer kernels (quantized, 512+ wide): decide "
                   "again in float when the letter margin is under this (0: never; 1: always)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
}

namespace {

// `model info` and `model list`.
void add_model_subcommands(CLI::App& app) {
  auto* model = app.add_subcommand("model", "Inspect GGUF models");
  model->require_subcommand(1);
  auto* info = model->add_subcommand("info", "Architecture, sizes, types, tokenizer of a GGUF");
  auto info_path = std::make_shared<std::string>();
  auto info_json = std::make_shared<bool>(false);
  info->add_option("path", *info_path, "GGUF file or model name")->required();
  auto* list = model->add_subcommand("list", "the models known by name: present or not, and where");
  auto list_json = std::make_shared<bool>(false);
  list->add_flag("--json", *list_json, "Print one JSON array");
  list->callback([list_json] { print_model_list(*list_json); });
  info->add_flag("--json", *info_json, "Print one JSON object");
  info->callback([info_path, info_json] {
    const std::string path = resolve_model(*info_path);
    if (encoder_info(path, *info_json)) return;
    const json j = model_info(path);
    // Invalid UTF-8 in a name or token text is replaced (U+FFFD): dump() would throw.
    if (*info_json)
      std::printf("%s\n", j.dump(-1, ' ', false, json::error_handler_t::replace).c_str());
    else
      print_info(j);
  });
}

// `tokenize`: ids (and an encoder's token types) of a text.
void add_tokenize_command(CLI::App& app) {
  auto* tok = app.add_subcommand("tokenize",
                                 "Token ids of a text (BOS added if the model asks; an encoder's "
                                 "[CLS] text [SEP], with its token types)");
  auto tok_model = std::make_shared<std::string>();
  auto tok_text = std::make_shared<std::string>();
  auto tok_pair = std::make_shared<std::string>();
  auto tok_json = std::make_shared<bool>(false);
  auto tok_lora = std::make_shared<std::string>();
  add_model_option(tok, *tok_model, true);
  add_lora_option(tok, *tok_lora);
  tok->add_option("text", *tok_text, "Text to tokenize")->required();
  auto* pair = tok->add_option("--pair", *tok_pair,
                               "Encoders (bert): a second segment, [CLS] text [SEP] pair [SEP]");
  tok->add_flag("--json", *tok_json, "Print {\"ids\": [...]} (encoders: and \"type_ids\": [...])");
  tok->callback([tok_model, tok_lora, tok_text, tok_pair, tok_json, pair] {
    const std::string path = resolve_model(*tok_model);
    std::vector<int32_t> ids, types;
    const bool encoder = model::is_encoder(gguf::File::open(path));
    if (encoder) {
      if (!tok_lora->empty())
        throw Error("--lora: " + path + " is an encoder (bert); adapters apply to decoders");
      const model::Encoder enc = model::Encoder::load(path);  // validated, as decoders are
      SegmentIds s =
          Tokenizer::from_gguf(enc.file())
              .encode_segments(*tok_text, pair->count() ? std::optional<std::string_view>(*tok_pair)
                                                        : std::nullopt);
      ids = std::move(s.ids);
      types = std::move(s.types);
    } else {
      if (pair->count()) throw Error("--pair: only an encoder (bert) reads a second segment");
      // An adapter does not change the vocabulary; it is still loaded, so a bad one fails here
      // as it would in any other command.
      const model::Model m = model::Model::load(path, *tok_lora);
      ids = tokenize(m.file(), *tok_text);
    }
    if (*tok_json) {
      json j{{"ids", ids}};
      if (encoder) j["type_ids"] = types;
      std::printf("%s\n", j.dump().c_str());
    } else {
      for (size_t i = 0; i < ids.size(); ++i) std::printf("%s%d", i ? " " : "", ids[i]);
      std::printf("\n");
    }
  });
}

// `logits`: rows of a forward pass, for comparison with other implementations.
void add_logits_command(CLI::App& app) {
  auto* lg = app.add_subcommand(
      "logits",
      "Logits rows of a forward pass. Positions index the whole sequence; dream rows are "
      "shifted (row p predicts token p+1). --prefix N runs the first N tokens as a cached "
      "prefix (which, for bidirectional models, attends only to itself); --no-cache computes "
      "that same mask in one uncached pass.");
  auto a = std::make_shared<LogitsArgs>();
  add_model_option(lg, a->model, true);
  add_lora_option(lg, a->lora);
  auto* text = lg->add_option("--text", a->text, "Text, tokenized with the model's vocabulary");
  auto* ids = lg->add_option("--ids", a->ids, "Comma-separated token ids");
  text->excludes(ids);
  lg->add_option("--positions", a->positions, "Comma-separated positions (default: all)");
  lg->add_option("--rows", a->rows, "Only these vocabulary rows (comma-separated ids)");
  lg->add_option("--prefix", a->prefix, "Treat the first N tokens as a cached prefix");
  lg->add_flag("--no-cache", a->no_cache, "With --prefix: same mask, computed uncached");
  lg->add_option("--threads", a->threads, "Worker threads")
      ->check(CLI::Range(1, model::kMaxThreads));
  lg->add_flag("--json", a->json, "Print one JSON object");
  lg->callback([a, text, ids] {
    if (text->count() == 0 && ids->count() == 0) throw Error("logits: give --text or --ids");
    run_logits(*a);
  });
}

}  // namespace

void add_model_commands(CLI::App& app) {
  add_model_subcommands(app);
  add_tokenize_command(app);
  add_logits_command(app);
}

}  // namespace meadow::cli
