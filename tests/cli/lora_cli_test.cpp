// --lora FILE on every command that takes --model: the adapter changes logits and decisions,
// cached and uncached runs agree with it, and a bad adapter is one error line with exit 2.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../model/lora_fixtures.hpp"
#include "cli_run.hpp"
#include "meadow/runtime/gguf.hpp"

namespace {

using meadow::cli_test::CliResult;
using meadow::cli_test::quoted;
using meadow::cli_test::shell_quote;
namespace lt = meadow::lora_test;

CliResult run(const std::string& args) {
  const std::string err = std::string(MEADOW_BINARY_DIR) + "/lora_cli_stderr." +
                          ::testing::UnitTest::GetInstance()->current_test_info()->name();
  return meadow::cli_test::run_cli(args, "env -u MEADOW_MIND_MODEL", err);
}

// A Q4_1 llama fixture (as SmolLM2's layers), a good adapter and one without alpha.
struct Files {
  std::string model, good, bad;
};

const Files& files() {
  static const Files f = [] {
    Files out;
    out.model = lt::fixture_path("lora_cli_llama_q4_1.gguf");
    const std::string cmd = std::string(MEADOW_PYTHON) + " " + MEADOW_SOURCE_DIR +
                            "/tools/make_fixture.py --arch llama --type Q4_1 --seed 2 --out " +
                            shell_quote(out.model);
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    const auto base = meadow::gguf::File::open(out.model);
    lt::AdapterSpec spec = lt::random_adapter(base, 4, 8.0f, 1, 0.2f);
    out.good = lt::fixture_path("lora_cli_good.gguf");
    spec.write(out.good);
    spec.erase_key("adapter.lora.alpha");
    out.bad = lt::fixture_path("lora_cli_no_alpha.gguf");
    spec.write(out.bad);
    return out;
  }();
  return f;
}

std::string model_args(const std::string& lora = "") {
  std::string s = "--model " + shell_quote(files().model);
  if (!lora.empty()) s += " --lora " + shell_quote(lora);
  return s;
}

std::vector<std::vector<double>> logits_of(const CliResult& r) {
  EXPECT_EQ(r.code, 0) << r.err;
  return nlohmann::json::parse(r.out)["logits"].get<std::vector<std::vector<double>>>();
}

double max_diff(const std::vector<std::vector<double>>& a,
                const std::vector<std::vector<double>>& b) {
  double d = 0;
  EXPECT_EQ(a.size(), b.size());
  for (size_t r = 0; r < a.size() && r < b.size(); ++r)
    for (size_t i = 0; i < a[r].size() && i < b[r].size(); ++i)
      d = std::max(d, std::fabs(a[r][i] - b[r][i]));
  return d;
}

TEST(LoraCli, LogitsChangeAndCachedEqualsUncached) {
  const std::string ids = " --ids 5,9,40,77,120,3,8,200,31,64 --positions 6,7,8,9 --json";
  const auto plain = logits_of(run("logits " + model_args() + ids));
  const CliResult r = run("logits " + model_args(files().good) + ids);
  const auto adapted = logits_of(r);
  EXPECT_EQ(nlohmann::json::parse(r.out)["lora"], files().good);
  EXPECT_GT(max_diff(adapted, plain), 1e-2);
  const auto cached = logits_of(run("logits " + model_args(files().good) + ids + " --prefix 6"));
  const auto same_mask =
      logits_of(run("logits " + model_args(files().good) + ids + " --prefix 6 --no-cache"));
  EXPECT_LT(max_diff(cached, adapted), 1e-4);
  EXPECT_LT(max_diff(same_mask, adapted), 1e-4);
}

TEST(LoraCli, DecideUsesTheAdapterCachedAndUncached) {
  const std::string table =
      "decide --rule 'If the light is red, choose A; if it is green, choose B.' "
      "--option 'A=stop' --option 'B=go' --state 'The light is green.' --json ";
  auto prob_a = [&](const std::string& extra) {
    const CliResult r = run(table + extra);
    EXPECT_EQ(r.code, 0) << r.err;
    return nlohmann::json::parse(r.out)["probs"]["A"].get<double>();
  };
  const double plain = prob_a(model_args());
  const double cached = prob_a(model_args(files().good));
  const double uncached = prob_a(model_args(files().good) + " --no-cache");
  EXPECT_NEAR(cached, uncached, 1e-5);
  EXPECT_GT(std::fabs(cached - plain), 1e-4) << "the adapter changed nothing";
}

TEST(LoraCli, TokenizeIgnoresAGoodAdapterAndRejectsABadOne) {
  const auto t = run("tokenize " + model_args() + " 'red light' --json");
  const auto u = run("tokenize " + model_args(files().good) + " 'red light' --json");
  ASSERT_EQ(u.code, 0) << u.err;
  EXPECT_EQ(t.out, u.out);
  EXPECT_EQ(run("tokenize " + model_args(files().bad) + " 'red light'").code, 2);
}

// Every command that loads a model: a bad adapter is exit 2 and one line naming the problem.
TEST(LoraCli, BadAdapterIsOneErrorLineAndExit2Everywhere) {
  const std::string set = std::string(MEADOW_SOURCE_DIR) + "/tests/data/exams/natural.jsonl";
  const std::vector<std::string> commands = {
      "logits --ids 1,2,3",
      "decide --rule 'Choose A.' --option A=x --option B=y --state 'now'",
      "check cartpole",
      "cartpole --gif " + shell_quote(lt::fixture_path("lora_cli.gif")),
      "play cartpole",
      "bench --decisions 1",
      "reading --sample 50 --set " + shell_quote(set),
  };
  for (const auto& c : commands) {
    const CliResult r = run(c + " " + model_args(files().bad));
    EXPECT_EQ(r.code, 2) << c << "\n" << r.err;
    EXPECT_EQ(r.err, "error: " + files().bad +
                         ": missing adapter.lora.alpha (the LoRA scale is alpha / rank)\n")
        << c;
  }
  EXPECT_EQ(run("logits --ids 1,2 " + model_args() + " --lora ''").code, 2);
}

// The exam runs with a good adapter (a random model may pass or fail it: exit 0 or 1).
TEST(LoraCli, CheckRunsWithAGoodAdapter) {
  const CliResult r = run("check cartpole " + model_args(files().good));
  EXPECT_TRUE(r.code == 0 || r.code == 1) << r.code << "\n" << r.err;
  EXPECT_NE(r.out.find("exam"), std::string::npos) << r.out;
}

}  // namespace
