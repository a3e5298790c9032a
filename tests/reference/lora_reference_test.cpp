// A LoRA on SmolLM2-135M-Instruct (the pinned GGUF) against peft: a seeded random peft LoRA
// (all seven projections, B nonzero) on transformers' model loaded from the same GGUF in
// float32, exported by train/small/export_adapter.py; `meadow-mind logits --lora` must give
// the logits of peft's merge_and_unload model, uncached and prefix-cached. Both sides run
// live through tests/reference/lora_reference.py in the project venv. Skips with a message
// when the model or the venv is missing (offline setup).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <unistd.h>
#include <nlohmann/json.hpp>

#include "meadow/mind.hpp"
#include "meadow/runtime/gguf.hpp"
#include "meadow/runtime/tokenizer.hpp"

namespace meadow {
namespace {

namespace fs = std::filesystem;

const std::string kPython = std::string(MEADOW_SOURCE_DIR) + "/.venv/bin/python";
const std::string kScript = std::string(MEADOW_SOURCE_DIR) + "/tests/reference/lora_reference.py";

std::optional<std::string> smollm2_path() {
  for (const auto& l : list_models(ModelSearch::from_environment()))
    if (l.model.name == "smollm2-135m") return l.path;
  return std::nullopt;
}

std::optional<std::string> why_skip() {
  if (!smollm2_path()) return "smollm2-135m is not in the model cache (scripts/fetch_models.sh)";
  const std::string probe =
      kPython + " -c 'import transformers, gguf, peft, safetensors' 2>/dev/null";
  if (!fs::exists(kPython) || std::system(probe.c_str()) != 0)
    return "the project venv lacks the reference packages (scripts/setup_python.sh)";
  return std::nullopt;
}

fs::path scratch_dir() {
  return fs::temp_directory_path() / ("meadow_lora_ref_" + std::to_string(::getpid()));
}

fs::path scratch(const std::string& name) {
  fs::create_directories(scratch_dir());
  return scratch_dir() / name;
}

// The peft folder and the adapter are ~40 MB: removed when the tests end.
struct RemoveScratch : ::testing::Environment {
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(scratch_dir(), ec);
  }
};
[[maybe_unused]] ::testing::Environment* const kRemoveScratch =
    ::testing::AddGlobalTestEnvironment(new RemoveScratch);

std::string q(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

void run_ok(const std::string& cmd) {
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
}

class Smollm2Lora : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = why_skip()) GTEST_SKIP() << *why;
  }
  // The seeded peft LoRA (rank 16, alpha 32) and its export, made once per test process.
  static const std::pair<std::string, std::string>& adapter() {
    static const std::pair<std::string, std::string> made = [] {
      const std::string peft = scratch("peft").string(), gguf = scratch("adapter.gguf").string();
      run_ok(kPython + " " + kScript + " make " + q(*smollm2_path()) + " " + q(peft) + " " +
             q(gguf) + " --rank 16 --alpha 32 --seed 7 >/dev/null");
      return std::make_pair(peft, gguf);
    }();
    return made;
  }
};

// The fact the exporter rests on, on the real file: llama.cpp's converter stored q_proj and
// k_proj with each head's rotary halves interleaved; v_proj as it is.
TEST_F(Smollm2Lora, GgufQAndKRowsArePermutedFromHuggingFace) {
  const fs::path out = scratch("layout.json");
  run_ok(kPython + " " + kScript + " layout " + q(*smollm2_path()) + " " + q(out.string()));
  std::ifstream in(out);
  const auto j = nlohmann::json::parse(in);
  for (const char* proj : {"q_proj", "k_proj"}) {
    EXPECT_EQ(j[proj]["permuted_max_diff"].get<double>(), 0.0) << proj;
    EXPECT_GT(j[proj]["as_is_max_diff"].get<double>(), 0.1) << proj;
  }
  EXPECT_EQ(j["v_proj"]["as_is_max_diff"].get<double>(), 0.0);
}

// Our logits with the exported adapter against peft's merged model: within 2e-5 x max |logit|
// (the base alone is within 2.6e-6 of transformers), the same top-1 at every row, uncached and
// prefix-cached (a short suffix takes the dot-product path, a long one sgemm). The adapter
// moves the logits far more than that (checked), so a wrong layout or scale cannot pass.
TEST_F(Smollm2Lora, LogitsMatchPeftMergedModel) {
  const auto& [peft, lora] = adapter();
  const gguf::File f = gguf::File::open(*smollm2_path());
  const Tokenizer tok = Tokenizer::from_gguf(f);
  const std::vector<std::string> texts = {
      "The capital of France is Paris, and the capital of Italy is",
      "<|im_start|>system\nRead the rule and the situation, then answer with the letter of the "
      "option to take.<|im_end|>\n<|im_start|>user\nRule: If the pole is falling left, choose A. "
      "If the pole is falling right, choose B.\nSituation: the pole is falling right<|im_end|>\n"
      "<|im_start|>assistant\n",
      "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n\nprint(fib(30))",
  };
  const fs::path dir = scratch("ours");
  fs::create_directories(dir);
  nlohmann::json prompts = nlohmann::json::array();
  for (size_t i = 0; i < texts.size(); ++i) {
    const auto ids = tok.encode(texts[i], true);
    ASSERT_GE(ids.size(), 10u);
    std::string id_list;
    for (size_t k = 0; k < ids.size(); ++k) {
      if (k) id_list += ',';
      id_list += std::to_string(ids[k]);
    }
    // Uncached, then cached with prefixes of n - 3 (dot products) and 8 tokens (sgemm).
    nlohmann::json runs = nlohmann::json::array();
    for (int64_t prefix : {int64_t(0), int64_t(ids.size()) - 3, int64_t(8)}) {
      const std::string name = std::to_string(i) + "_" + std::to_string(prefix);
      const fs::path js = dir / (name + ".json");
      // MEADOW_MATMUL=float: PEFT's logits are compared on the float path.
      run_ok("MEADOW_MATMUL=float " + q(MEADOW_CLI) + " logits --model " + q(*smollm2_path()) +
             " --lora " + q(lora) + " --threads 2 --ids " + id_list +
             (prefix ? " --prefix " + std::to_string(prefix) : "") + " --json > " + q(js.string()));
      std::ifstream in(js);
      const auto j = nlohmann::json::parse(in);
      ASSERT_EQ(j["cached"].get<bool>(), prefix > 0);
      ASSERT_EQ(j["lora"], lora);
      std::vector<float> rows;
      for (const auto& row : j["logits"])
        for (const auto& v : row) rows.push_back(v.get<float>());
      ASSERT_EQ(rows.size(), (ids.size() - size_t(prefix)) * size_t(tok.size()));
      std::ofstream(dir / (name + ".f32"), std::ios::binary)
          .write(reinterpret_cast<const char*>(rows.data()),
                 std::streamsize(rows.size() * sizeof(float)));
      fs::remove(js);
      runs.push_back({{"file", name + ".f32"}, {"from", prefix}});
    }
    prompts.push_back({{"ids", ids}, {"runs", runs}});
  }
  const fs::path in = scratch("prompts.json"), out = scratch("stats.json");
  std::ofstream(in) << nlohmann::json{{"prompts", prompts}}.dump();
  run_ok(kPython + " " + kScript + " logits " + q(*smollm2_path()) + " " + q(peft) + " " +
         q(in.string()) + " " + q(dir.string()) + " " + q(out.string()));
  std::ifstream sin(out);
  const auto stats = nlohmann::json::parse(sin)["runs"];
  ASSERT_EQ(stats.size(), 3 * texts.size());
  double worst = 0;
  for (const auto& st : stats) {
    const double top = st["max_abs_logit"].get<double>();
    const double ratio = st["max_abs_diff"].get<double>() / top;
    const double effect = st["adapter_effect"].get<double>() / top;
    worst = std::max(worst, ratio);
    std::printf(
        "%s: %d rows, max |diff| %.3g, max |logit| %.3g, ratio %.3g; adapter moves "
        "logits by %.3g x max |logit|, top-1 of %d rows\n",
        st["file"].get<std::string>().c_str(), st["rows"].get<int>(),
        st["max_abs_diff"].get<double>(), top, ratio, effect,
        st["top1_changed_by_adapter"].get<int>());
    EXPECT_LE(ratio, 2e-5) << st["file"];
    EXPECT_EQ(st["top1_mismatches"].get<int>(), 0) << st["file"];
    EXPECT_GT(effect, 1e-2) << st["file"] << ": the adapter barely changes the logits";
  }
  std::printf("worst ratio %.3g\n", worst);
}

}  // namespace
}  // namespace meadow
