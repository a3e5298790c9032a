// `meadow-mind decide` (DESIGN.md's stable JSON hook) and `ai-prompt`; bad input exits 2.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_run.hpp"

#include "../decision/mind_fixture.hpp"

namespace {

using meadow::mind_test::shell_quote;

using Result = meadow::cli_test::CliResult;

// Runs the CLI with `env` prepended (e.g. "MEADOW_MIND_MODEL=x"); stderr goes to a file.
Result run(const std::string& args, const std::string& env = "env -u MEADOW_MIND_MODEL") {
  const std::string err_file = std::string(MEADOW_BINARY_DIR) + "/mind_cli_stderr." +
                               ::testing::UnitTest::GetInstance()->current_test_info()->name();
  return meadow::cli_test::run_cli(args, env, err_file);
}

const std::string kTable =
    "--rule 'If the pole leans left, choose A; if it leans right, choose B.' "
    "--option 'A=push the cart to the left' --option 'B=push the cart to the right' ";

TEST(DecideCommand, JsonShape) {
  const std::string model = meadow::mind_test::train_fixture();
  const Result r = run("decide " + kTable + "--state 'The pole leans left.' --json --model " +
                       shell_quote(model));
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.contains("letter") && j.contains("probs") && j.contains("lat_ms"));
  const std::string letter = j["letter"];
  ASSERT_TRUE(letter == "A" || letter == "B");
  ASSERT_EQ(j["probs"].size(), 2u);
  const double a = j["probs"]["A"], b = j["probs"]["B"];
  EXPECT_NEAR(a + b, 1.0, 1e-9);
  EXPECT_EQ(letter, a >= b ? "A" : "B");
  EXPECT_GT(j["lat_ms"].get<double>(), 0.0);

  // The uncached pass (same attention mask) gives the same answer.
  const Result u =
      run("decide " + kTable + "--state 'The pole leans left.' --json --no-cache --model " +
          shell_quote(model));
  ASSERT_EQ(u.code, 0) << u.err;
  const auto k = nlohmann::json::parse(u.out);
  EXPECT_EQ(k["letter"], j["letter"]);
  EXPECT_NEAR(k["probs"]["A"].get<double>(), a, 1e-4);

  // MEADOW_MIND_MODEL resolves the model when --model is absent.
  const Result e = run("decide " + kTable + "--state 'The pole leans left.' --json",
                       "MEADOW_MIND_MODEL=" + shell_quote(model));
  ASSERT_EQ(e.code, 0) << e.err;
  EXPECT_EQ(nlohmann::json::parse(e.out)["model"], model);

  const Result h =
      run("decide " + kTable + "--state 'The pole leans left.' --model " + shell_quote(model));
  ASSERT_EQ(h.code, 0) << h.err;
  EXPECT_EQ(h.out.substr(0, 1), letter);  // human form starts with the letter
}

// --float-recheck 1 decides every answer again in float: the probabilities of the float path
// (MEADOW_MATMUL=float) exactly; 0 keeps the integer kernels' rounding.
TEST(DecideCommand, FloatRecheckReachesTheDecision) {
  const std::string model =
      " --json --model " + shell_quote(meadow::mind_test::wide_q8_fixture("cli"));
  const std::string table =
      "decide --rule 'If the light is red, choose A; if green, B.' --option A=stop --option B=go ";
  bool rounding_showed = false;
  for (const std::string state : {"The light is red.", "Green, and the road is clear.", "x"}) {
    const std::string args = table + "--state " + shell_quote(state) + model;
    const Result f = run(args, "env -u MEADOW_MIND_MODEL MEADOW_MATMUL=float");
    const Result always = run(args + " --float-recheck 1");
    const Result never = run(args + " --float-recheck 0");
    ASSERT_EQ(f.code, 0) << f.err;
    ASSERT_EQ(always.code, 0) << always.err;
    ASSERT_EQ(never.code, 0) << never.err;
    const auto pf = nlohmann::json::parse(f.out)["probs"];
    EXPECT_EQ(nlohmann::json::parse(always.out)["probs"], pf) << state;
    rounding_showed |= nlohmann::json::parse(never.out)["probs"] != pf;
  }
  EXPECT_TRUE(rounding_showed) << "the integer kernels should round differently somewhere";
}

// check takes the same option: with 1 its exam listing is the float path's to the digit.
TEST(CheckCommand, FloatRecheckReachesTheExam) {
  const std::string args =
      "check cartpole --model " + shell_quote(meadow::mind_test::wide_q8_fixture("cli"));
  const Result f = run(args + " --float-recheck 0", "env -u MEADOW_MIND_MODEL MEADOW_MATMUL=float");
  const Result always = run(args + " --float-recheck 1");
  const Result never = run(args + " --float-recheck 0");
  ASSERT_FALSE(f.out.empty()) << f.err;
  EXPECT_EQ(always.out, f.out);
  EXPECT_EQ(always.code, f.code);
  EXPECT_NE(never.out, f.out) << "the integer kernels should round differently somewhere";
}

TEST(DecideCommand, BadInputExitsTwoWithOneLine) {
  const std::string model = " --model " + shell_quote(meadow::mind_test::train_fixture());
  struct Bad {
    std::string args, says;
  };
  const std::vector<Bad> bad = {
      {"decide --rule r --state s" + model, "--option"},  // no options
      {"decide --rule r --option 'Apush' --state s" + model, "expected LETTER=TEXT"},
      {"decide --rule r --option '=push' --state s" + model, "expected LETTER=TEXT"},
      {"decide --rule r --option A=x --option A=y --state s" + model,
       "duplicate option letter 'A'"},
      {"decide --rule ' ' --option A=x --state s" + model, "empty rule"},
      {"decide --rule r --option a=x --state s" + model, "not one of A..Z"},
      {"decide --rule r --option A=x --state s --model /nonexistent.gguf", "no such file"},
      {"decide --rule r --option A=x --state s --float-recheck 2" + model, "--float-recheck"},
      {"decide --rule r --option A=x --state s --exit-margin -1" + model, "--exit-margin"},
  };
  for (const auto& b : bad) {
    const Result r = run(b.args);
    EXPECT_EQ(r.code, 2) << b.args;
    EXPECT_NE(r.err.find(b.says), std::string::npos) << b.args << " → " << r.err;
    EXPECT_TRUE(r.out.empty()) << b.args;
  }
  // Errors are one line.
  const Result one = run("decide --rule r --option A=x --option A=y --state s" + model);
  EXPECT_EQ(one.err, "error: task decide: duplicate option letter 'A'\n");
}

TEST(AiPromptCommand, PrintsTheGuide) {
  const Result r = run("ai-prompt");
  ASSERT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("5. Take the exam"), std::string::npos);
  EXPECT_NE(r.out.find("meadow::Task"), std::string::npos);
  const Result py = run("ai-prompt --lang python");
  ASSERT_EQ(py.code, 0);
  EXPECT_NE(py.out.find("from meadow_mind import"), std::string::npos);
  EXPECT_EQ(run("ai-prompt --lang rust").code, 2);
}

}  // namespace
