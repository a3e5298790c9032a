// `meadow-mind generate`, `draft` and `route`: JSON shapes, the cached and recomputing paths
// agreeing, and bad input exiting 2 with one line.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_run.hpp"

#include "../decision/mind_fixture.hpp"

namespace {

using meadow::mind_test::shell_quote;
using Result = meadow::cli_test::CliResult;

Result run(const std::string& args) {
  const std::string err_file = std::string(MEADOW_BINARY_DIR) + "/text_cli_stderr." +
                               ::testing::UnitTest::GetInstance()->current_test_info()->name();
  return meadow::cli_test::run_cli(args, "env -u MEADOW_MIND_MODEL", err_file);
}

std::string model(const std::string& arch = "") {
  return " --model " +
         shell_quote(arch.empty() ? meadow::mind_test::train_fixture()
                                  : meadow::mind_test::plain_fixture(arch)) +
         " ";
}

TEST(GenerateCommand, JsonShapeAndCacheAgreement) {
  for (const std::string arch : {"", "qwen2"}) {
    const std::string args =
        "generate --prompt 'Say hello.' --max-tokens 8 --block 4 --json" + model(arch);
    const Result a = run(args);
    ASSERT_EQ(a.code, 0) << a.err;
    const auto j = nlohmann::json::parse(a.out);
    for (const char* k : {"text", "finish_reason", "prompt_tokens", "completion_tokens", "steps",
                          "passes", "ms", "tokens_per_s"})
      EXPECT_TRUE(j.contains(k)) << k;
    EXPECT_LE(j["completion_tokens"].get<int>(), 8);
    const Result b = run(args + " --no-cache");
    ASSERT_EQ(b.code, 0) << b.err;
    EXPECT_EQ(nlohmann::json::parse(b.out)["text"], j["text"]) << arch;
  }
}

TEST(DraftAndRouteCommands, JsonShape) {
  const Result d = run("draft --prompt 'Say hello.' --length 5 --json" + model());
  ASSERT_EQ(d.code, 0) << d.err;
  const auto j = nlohmann::json::parse(d.out);
  EXPECT_EQ(j["tokens"].size(), 5u);
  EXPECT_GT(j["coherence"].get<double>(), 0);
  const Result r = run("route --prompt 'Say hello.' --escalate-below 1 --json" + model());
  ASSERT_EQ(r.code, 0) << r.err;
  const auto k = nlohmann::json::parse(r.out);
  EXPECT_TRUE(k["escalate"].get<bool>());  // Σ < 1 always
  EXPECT_TRUE(k["mode"] == "text" || k["mode"] == "code" || k["mode"] == "chart");
}

TEST(GenerateCommand, BadInputExitsTwo) {
  for (const std::string bad :
       {"generate --prompt '' ", "generate --prompt x --max-tokens 0 ",
        "generate --prompt x --confidence loud ", "generate --prompt x --top-p 2 ",
        "generate --prompt x --max-tokens 100000000 ", "draft --prompt x --length 0 ",
        "generate --prompt x --model /nonexistent.gguf "}) {
    const Result r = run(bad + (bad.find("--model") == std::string::npos ? model() : ""));
    EXPECT_EQ(r.code, 2) << bad << r.out;
    EXPECT_FALSE(r.err.empty()) << bad;
  }
}

TEST(ToolCallCommand, AlwaysPrintsJsonAndRefusesBadInput) {
  const Result r = run("tool-call --prompt 'read the file a.txt' --value-tokens 3" + model());
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j.contains("name") && j["arguments"].is_object());
  const Result named = run("tool-call --prompt x --tool run_bash --json" + model());
  ASSERT_EQ(named.code, 0) << named.err;
  EXPECT_EQ(nlohmann::json::parse(named.out)["call"]["name"], "run_bash");
  for (const std::string& bad :
       {"tool-call --prompt x" + model("qwen2"), "tool-call --prompt x --tool nope" + model(),
        "tool-call --prompt x --tools /nonexistent.json" + model(),
        "infill --before '' --after x" + model()}) {
    const Result b = run(bad);
    EXPECT_EQ(b.code, 2) << bad << b.out;
    EXPECT_FALSE(b.err.empty()) << bad;
  }
  const Result f = run("infill --before 'The cart' --after ' fast.' --tokens 3 --json" + model());
  ASSERT_EQ(f.code, 0) << f.err;
  EXPECT_EQ(nlohmann::json::parse(f.out)["tokens"].size(), 3u);
}

TEST(LatencyCommand, WritesTableCsvAndPlot) {
  const std::string dir = std::string(MEADOW_BINARY_DIR) + "/latency_cli";
  const Result r = run("latency --lengths 4,8 --repeats 1 --causal '' --csv " + dir +
                       "/l.csv --png " + dir + "/l.png" + model());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("decision (one pass)"), std::string::npos);
  EXPECT_NE(r.out.find("diffusion, one token a step"), std::string::npos);
  const std::string csv = meadow::cli_test::read_file(dir + "/l.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 3 * 2);  // header, 3 lines x 2 lengths
  EXPECT_EQ(meadow::cli_test::read_file(dir + "/l.png").substr(1, 3), "PNG");
  EXPECT_EQ(run("latency --lengths 0" + model()).code, 2);
}

}  // namespace
