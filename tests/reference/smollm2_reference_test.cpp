// SmolLM2-135M-Instruct (the pinned GGUF scripts/fetch_models.sh puts in the model cache)
// against Hugging Face's implementations: token ids against `tokenizers` with SmolLM2's
// published pipeline, logits against `transformers` loading the same GGUF in float32. Both
// run live through tests/reference/hf_reference.py in the project venv. Skips with a message
// when the model or the venv is missing (offline setup).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
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
#include "meadow/runtime/decider.hpp"
#include "meadow/runtime/model.hpp"
#include "meadow/runtime/tokenizer.hpp"
#include "meadow/tasks.hpp"

namespace meadow {
namespace {

namespace fs = std::filesystem;

std::optional<std::string> smollm2_path() {
  for (const auto& l : list_models(ModelSearch::from_environment()))
    if (l.model.name == "smollm2-135m") return l.path;
  return std::nullopt;
}

const std::string kPython = std::string(MEADOW_SOURCE_DIR) + "/.venv/bin/python";
const std::string kScript = std::string(MEADOW_SOURCE_DIR) + "/tests/reference/hf_reference.py";

std::optional<std::string> why_skip() {
  if (!smollm2_path()) return "smollm2-135m is not in the model cache (scripts/fetch_models.sh)";
  const std::string probe = kPython + " -c 'import transformers, tokenizers, gguf' 2>/dev/null";
  if (!fs::exists(kPython) || std::system(probe.c_str()) != 0)
    return "the project venv lacks the reference packages (scripts/setup_python.sh)";
  return std::nullopt;
}

fs::path scratch(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("meadow_ref_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d / name;
}

nlohmann::json run_reference(const std::string& args, const fs::path& out) {
  const std::string cmd = kPython + " " + kScript + " " + args;
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream in(out);
  return nlohmann::json::parse(in);
}

// Exactness is checked on the float path: Auto multiplies SmolLM2's 576-wide weights in
// integers, whose int8 activations move logits by more than these tolerances.
model::RunOptions in_float() {
  model::RunOptions o;
  o.threads = 2;
  o.arithmetic = model::Arithmetic::Float;
  return o;
}

class Smollm2Reference : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = why_skip()) GTEST_SKIP() << *why;
  }
};

bool valid_utf8(const std::string& s) {
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = s[i];
    const size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    i += n;
  }
  return true;
}

// The Qwen parity corpus (680 strings: English, code, numbers, whitespace runs, contractions,
// CJK, emoji with joiners, accented Latin, RTL, special tokens) gives identical ids.
TEST_F(Smollm2Reference, TokenIdsIdenticalToHuggingFaceTokenizers) {
  const std::string corpus_path = std::string(MEADOW_SOURCE_DIR) + "/tests/tokenizer/corpus.json";
  std::ifstream cin(corpus_path);
  const auto corpus = nlohmann::json::parse(cin).get<std::vector<std::string>>();
  ASSERT_GE(corpus.size(), 500u);
  const fs::path out = scratch("ids.json");
  const auto ref = run_reference(
      "tokens " + *smollm2_path() + " " + corpus_path + " " + out.string(), out)["ids"];
  ASSERT_EQ(ref.size(), corpus.size());
  const gguf::File f = gguf::File::open(*smollm2_path());
  const Tokenizer tok = Tokenizer::from_gguf(f);
  int mismatches = 0, round_trips = 0;
  for (size_t i = 0; i < corpus.size(); ++i) {
    const auto ours = tok.encode(corpus[i], true);
    const auto want = ref[i].get<std::vector<int32_t>>();
    if (ours != want && ++mismatches <= 5)
      ADD_FAILURE() << "string " << i << " " << nlohmann::json(corpus[i]).dump() << ": ours "
                    << nlohmann::json(ours).dump() << ", reference " << nlohmann::json(want).dump();
    if (valid_utf8(corpus[i])) {
      EXPECT_EQ(tok.decode(ours), corpus[i]) << "string " << i;
      ++round_trips;
    }
  }
  EXPECT_EQ(mismatches, 0) << "of " << corpus.size() << " strings";
  EXPECT_GT(round_trips, 500);
}

// Prompts of 10-300 tokens: every logit within 1e-3 x max |logit| of transformers' float32
// forward and the same top-1 token at every position. Our weights are dequantized exactly;
// the rest is float32 summation order.
TEST_F(Smollm2Reference, LogitsMatchTransformersOnTheSameGguf) {
  const gguf::File f = gguf::File::open(*smollm2_path());
  const Tokenizer tok = Tokenizer::from_gguf(f);
  const model::Model m = model::Model::load(*smollm2_path());
  std::string story;
  for (int i = 0; i < 8; ++i)
    story += "On day " + std::to_string(i + 1) +
             " the keeper climbed the lighthouse stairs, wiped the lens and wrote the weather "
             "in the log: fog, wind from the west, and a ship far out. ";
  const std::vector<std::string> texts = {
      "The capital of France is Paris, and the capital of Italy is",
      "<|im_start|>system\nRead the rule and the situation, then answer with the letter of the "
      "option to take.<|im_end|>\n<|im_start|>user\nRule: If the pole is falling left, choose A. "
      "If the pole is falling right, choose B.\nOptions:\nA) push the cart left\nB) push the "
      "cart right\nSituation: the pole is falling right<|im_end|>\n<|im_start|>assistant\n",
      "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n\nprint(fib(30))  # 832040",
      "Numbers 3.14159, 2,718 and 1e-9; dates 2026-12-04; café naïve Zürich — 東京 "
      "👩‍👩‍👧 "
      "مرحبا",
      story,
  };
  nlohmann::json prompts = nlohmann::json::array();
  const fs::path dir = scratch("ours");
  fs::create_directories(dir);
  for (size_t i = 0; i < texts.size(); ++i) {
    const auto ids = tok.encode(texts[i], true);
    ASSERT_GE(ids.size(), 10u);
    ASSERT_LE(ids.size(), 300u);
    model::Sequence s{ids, {}};
    for (size_t p = 0; p < ids.size(); ++p) s.positions.push_back(int64_t(p));
    const auto lg = m.run({s}, in_float()).at(0);
    std::ofstream(dir / (std::to_string(i) + ".f32"), std::ios::binary)
        .write(reinterpret_cast<const char*>(lg.data.data()),
               std::streamsize(lg.data.size() * sizeof(float)));
    prompts.push_back(ids);
  }
  EXPECT_GE(prompts.back().size(), 250u) << "the long prompt should be near 300 tokens";
  const fs::path in = scratch("prompts.json"), out = scratch("logits_stats.json");
  std::ofstream(in) << nlohmann::json{{"prompts", prompts}}.dump();
  const auto stats = run_reference(
      "logits " + *smollm2_path() + " " + in.string() + " " + dir.string() + " " + out.string(),
      out)["prompts"];
  ASSERT_EQ(stats.size(), texts.size());
  for (size_t i = 0; i < stats.size(); ++i) {
    const auto& st = stats[i];
    const double ratio = st["max_abs_diff"].get<double>() / st["max_abs_logit"].get<double>();
    std::printf("prompt %zu: %d tokens, max |diff| %.3g, max |logit| %.3g, ratio %.3g\n", i,
                st["tokens"].get<int>(), st["max_abs_diff"].get<double>(),
                st["max_abs_logit"].get<double>(), ratio);
    EXPECT_LE(ratio, 1e-3) << "prompt " << i;
    EXPECT_EQ(st["top1_mismatches"].get<int>(), 0) << "prompt " << i;
  }
}

// The causal prefix cache changes nothing but summation order (a short suffix takes the
// dot-product path, the whole sequence sgemm): within 1e-5 x max |logit|.
TEST_F(Smollm2Reference, PrefixCachedEqualsUncached) {
  const gguf::File f = gguf::File::open(*smollm2_path());
  const Tokenizer tok = Tokenizer::from_gguf(f);
  const model::Model m = model::Model::load(*smollm2_path());
  const auto ids = tok.encode(
      "<|im_start|>user\nRule: when the kettle whistles, choose B.\nSituation: the kettle is "
      "whistling loudly<|im_end|>\n<|im_start|>assistant\n",
      true);
  for (size_t split : {size_t(8), ids.size() - 3, ids.size() - 12}) {
    const std::vector<int32_t> prefix(ids.begin(), ids.begin() + long(split));
    const std::vector<int32_t> suffix(ids.begin() + long(split), ids.end());
    std::vector<int64_t> rows;
    for (size_t p = split; p < ids.size(); ++p) rows.push_back(int64_t(p));
    const auto cache = m.encode_prefix(prefix, 2, model::Arithmetic::Float);
    const auto cached = m.run_cached(cache, {{suffix, rows}}, in_float()).at(0);
    const auto plain = m.run({{ids, rows}}, in_float()).at(0);
    ASSERT_EQ(cached.data.size(), plain.data.size());
    double worst = 0, top = 0;
    for (size_t k = 0; k < plain.data.size(); ++k) {
      worst = std::max(worst, double(std::fabs(cached.data[k] - plain.data[k])));
      top = std::max(top, double(std::fabs(plain.data[k])));
    }
    std::printf("split %zu: max |cached - uncached| %.3g (max |logit| %.3g)\n", split, worst, top);
    EXPECT_LE(worst, 1e-5 * std::max(1.0, top)) << "split " << split;
  }
}

// Causal decisions read each letter with and without a leading space (both single tokens in
// SmolLM2's vocabulary) and add the two probabilities.
TEST_F(Smollm2Reference, DecisionReadsBothLetterForms) {
  const model::Model m = model::Model::load(*smollm2_path());
  const Tokenizer tok = Tokenizer::from_gguf(m.file());
  const std::vector<decision::Choice> choices = {{'C', "sound the horn"},
                                                 {'A', "keep the lamp turning"}};
  const decision::Decider d(m, tok, "Fog rolling in: C. Clear night: A.", choices);
  ASSERT_EQ(d.read_ids().size(), 4u);
  for (size_t i = 0; i < choices.size(); ++i) {
    const auto bare = tok.encode(std::string(1, choices[i].letter), false);
    const auto spaced = tok.encode(" " + std::string(1, choices[i].letter), false);
    ASSERT_EQ(bare.size(), 1u);
    ASSERT_EQ(spaced.size(), 1u);
    EXPECT_EQ(d.read_ids()[2 * i], bare[0]);
    EXPECT_EQ(d.read_ids()[2 * i + 1], spaced[0]);
    EXPECT_EQ(d.read_owner()[2 * i + 1], i);
  }
  const auto got = d.decide("Thick fog is rolling in over the rocks.");
  EXPECT_NEAR(got.probs[0].second + got.probs[1].second, 1.0, 1e-9);
}

// The Mind API runs a built-in exam on the causal model with its own chat template; what it
// scores zero-shot is measured by `meadow-mind reading`, not asserted here.
TEST_F(Smollm2Reference, MindRunsABuiltinExam) {
  Mind mind("smollm2-135m", MindOptions{.decide = {.threads = 2}});
  EXPECT_EQ(mind.model().config().arch, model::Arch::Llama);
  const ExamResult r = mind.exam(builtin_task("cartpole").task);
  EXPECT_EQ(r.n_total, 10);
  for (const auto& d : r.decisions) {
    double sum = 0;
    for (const auto& [letter, p] : d.probs) sum += p;
    EXPECT_NEAR(sum, 1.0, 1e-9);
    EXPECT_GT(d.lat_ms, 0.0);
  }
}

}  // namespace
}  // namespace meadow
