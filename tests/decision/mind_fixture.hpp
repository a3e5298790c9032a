// Test helpers shared by the tests of several layers (header-only so every test executable can
// include it): random-weight fixtures with the embedded model's tokenizer, and
// the training pipeline's prompt ids for the same strings.
#pragma once

#include <cstdio>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace meadow::mind_test {

inline std::string run_command(const std::string& cmd) {
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) throw std::runtime_error("cannot run: " + cmd);
  std::string out;
  char buf[65536];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  if (pclose(p) != 0) throw std::runtime_error("command failed: " + cmd);
  return out;
}

inline std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

inline std::filesystem::path fixture_dir() {
  const auto dir = std::filesystem::path(MEADOW_BINARY_DIR) / "mind_fixtures";
  std::filesystem::create_directories(dir);
  return dir;
}

// A dream fixture with train/tokenizer/vocab.json (4096 tokens), made once per process.
inline std::string train_fixture(const std::string& name = "dream-train-vocab",
                                 const std::string& extra = "") {
  static std::map<std::string, std::string> made;
  if (auto it = made.find(name); it != made.end()) return it->second;
  const std::string out = (fixture_dir() / (name + ".gguf")).string();
  run_command(std::string(MEADOW_PYTHON) + " " + MEADOW_SOURCE_DIR +
              "/tests/decision/make_train_fixture.py " + extra + " --out " + shell_quote(out));
  return made[name] = out;
}

// A plain tools/make_fixture.py fixture (synthetic vocabulary), e.g. for causal archs.
inline std::string plain_fixture(const std::string& arch) {
  static std::map<std::string, std::string> made;
  if (auto it = made.find(arch); it != made.end()) return it->second;
  const std::string out = (fixture_dir() / ("plain-" + arch + ".gguf")).string();
  run_command(std::string(MEADOW_PYTHON) + " " + MEADOW_SOURCE_DIR +
              "/tools/make_fixture.py --arch " + arch + " --vocab 512 --out " + shell_quote(out));
  return made[arch] = out;
}

// A tools/make_fixture.py fixture made from `args` into the fixture folder as name.gguf.
inline std::string make_fixture(const std::string& name, const std::string& args) {
  const std::string out = (fixture_dir() / (name + ".gguf")).string();
  run_command(std::string(MEADOW_PYTHON) + " " + MEADOW_SOURCE_DIR + "/tools/make_fixture.py " +
              args + " --out " + shell_quote(out));
  return out;
}

// A causal fixture with 2048-wide Q8_0 weights: wide enough for Arithmetic::Auto to multiply in
// integers, so decisions take the float re-check. One file per name: test executables run in
// parallel.
inline std::string wide_q8_fixture(const std::string& name) {
  return make_fixture(name + "-qwen2-q8-2048",
                      "--arch qwen2 --type Q8_0 --vocab 512 --hidden 2048 --ffn 2048 --layers 1 "
                      "--heads 16 --kv-heads 2");
}

struct LayoutIds {
  std::vector<int32_t> prefix, suffix;
  int32_t mask = -1;
};

// train/corpus/layout.py's chat layout tokenized by train/tokenizer
// (tests/decision/layout_ids.py).
inline LayoutIds python_layout_ids(const std::string& rule,
                                   const std::vector<std::pair<char, std::string>>& options,
                                   const std::string& situation) {
  nlohmann::json q{{"rule", rule}, {"situation", situation}, {"options", nlohmann::json::array()}};
  for (const auto& [l, t] : options) q["options"].push_back({std::string(1, l), t});
  const auto j =
      nlohmann::json::parse(run_command(std::string(MEADOW_PYTHON) + " " + MEADOW_SOURCE_DIR +
                                        "/tests/decision/layout_ids.py " + shell_quote(q.dump())));
  return {j.at("prefix").get<std::vector<int32_t>>(), j.at("suffix").get<std::vector<int32_t>>(),
          j.at("mask").get<int32_t>()};
}

}  // namespace meadow::mind_test
