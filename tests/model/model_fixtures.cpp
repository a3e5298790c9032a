#include "model_fixtures.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include <nlohmann/json.hpp>

#include "../decision/mind_fixture.hpp"

namespace meadow::model_test {
namespace {

template <class T>
std::string join(const std::vector<T>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

}  // namespace

std::string run_command(const std::string& cmd) {
  return mind_test::run_command(cmd);
}

std::string fixture(const std::string& name, const std::string& arch, const std::string& type,
                    const std::string& extra) {
  static std::map<std::string, std::string> made;  // per process: regenerate each run
  if (auto it = made.find(name); it != made.end()) return it->second;
  const std::filesystem::path dir = std::filesystem::path(MEADOW_BINARY_DIR) / "model_fixtures";
  std::filesystem::create_directories(dir);
  const std::string out = (dir / (name + ".gguf")).string();
  run_command(std::string(MEADOW_PYTHON) + " " + MEADOW_SOURCE_DIR + "/tools/make_fixture.py" +
              " --arch " + arch + " --type " + type + " " + extra + " --out '" + out + "'");
  made[name] = out;
  return out;
}

std::string shape_args(const std::string& type) {
  if (type == "Q4_K" || type == "Q6_K" || type == "Q4_K_M")
    return "--hidden 256 --heads 4 --kv-heads 2 --ffn 256 --layers 2 --vocab 320";
  return "--hidden 64 --heads 4 --kv-heads 2 --ffn 128 --layers 2 --vocab 320";
}

std::vector<std::vector<double>> reference_logits(const std::string& model,
                                                  const std::vector<int32_t>& ids,
                                                  const std::vector<int64_t>& positions,
                                                  const std::string& mask, int64_t prefix_len,
                                                  const std::vector<int32_t>& vocab_rows) {
  std::string cmd = std::string(MEADOW_PYTHON) + " " + MEADOW_SOURCE_DIR +
                    "/tests/model/reference_forward.py --model '" + model + "' --ids " + join(ids) +
                    " --positions " + join(positions) + " --mask " + mask + " --prefix-len " +
                    std::to_string(prefix_len);
  if (!vocab_rows.empty()) cmd += " --vocab-rows " + join(vocab_rows);
  const auto j = nlohmann::json::parse(run_command(cmd));
  return j.at("logits").get<std::vector<std::vector<double>>>();
}

double rel_error(const float* a, const std::vector<double>& b) {
  double diff = 0.0, scale = 0.0;
  for (size_t i = 0; i < b.size(); ++i) {
    diff = std::max(diff, std::abs(double(a[i]) - b[i]));
    scale = std::max(scale, std::abs(b[i]));
  }
  return diff / std::max(scale, 1e-30);
}

}  // namespace meadow::model_test
