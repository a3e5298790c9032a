// Numbers and texts on the command line that once turned into something else silently: a seed
// of -1 or 2^70 became 2^64-1, --ids 4294967296 became token 0, --fps nan wrote a GIF with
// no delays, an empty --state was decided. Each is now one error and exit 2.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "cli_run.hpp"

namespace {

using meadow::cli_test::CliResult;

class HostileArgs : public meadow::cli_test::CliTestDir {
 protected:
  HostileArgs() : CliTestDir("meadow-hostile-args-") {}
  CliResult run(const std::vector<std::string>& args) const {
    return meadow::cli_test::run_cli(meadow::cli_test::quoted(args), "", file("stderr.txt"));
  }
  void expect_usage_error(const std::vector<std::string>& args, const std::string& mention) const {
    std::string cmd;
    for (const auto& a : args) cmd += a + " ";
    const CliResult r = run(args);
    EXPECT_EQ(r.code, 2) << cmd << "\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << cmd << "\n" << r.out;
    EXPECT_NE(r.err.find(mention), std::string::npos) << cmd << "\n" << r.err;
  }
  std::string actions() const {
    std::ofstream(file("a.json")) << "[0, 1]";
    return file("a.json");
  }
};

TEST_F(HostileArgs, SeedsOutsideZeroToTwoPow64MinusOneAreRefused) {
  const std::string a = actions();
  for (const std::string bad :
       {"-1", "18446744073709551616", "1180591620717411303424", "1e3", "0x10", " 5", ""}) {
    SCOPED_TRACE(bad);
    expect_usage_error({"env", "run", "CartPole-v1", "--seed", bad, "--actions", a},
                       "a seed is a whole number from 0 to 18446744073709551615");
    expect_usage_error({"env", "play", "CartPole-v1", "--seed", bad, "--steps", "1"},
                       "a seed is a whole number");
    expect_usage_error({"play", "cartpole", "--seed", bad}, "a seed is a whole number");
  }
  // The largest seed is a seed; one more episode after it is not.
  const CliResult top =
      run({"env", "run", "CartPole-v1", "--seed", "18446744073709551615", "--actions", a});
  EXPECT_EQ(top.code, 0) << top.err;
  expect_usage_error({"play", "cartpole", "--seed", "18446744073709551615", "--episodes", "2"},
                     "runs past the largest seed");
  // -1 and 2^64-1 were the same episode; now only the second one runs.
  const CliResult minus = run({"env", "run", "CartPole-v1", "--seed", "-1", "--actions", a});
  EXPECT_NE(minus.code, 0);
}

TEST_F(HostileArgs, TokenIdsRowsAndPositionsMustFitTheirType) {
  const std::string model = std::string(MEADOW_SOURCE_DIR) + "/models/meadow-nano.gguf";
  const std::vector<std::string> logits = {"logits", "--model", model, "--json"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = logits;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  expect_usage_error(with({"--ids", "4294967296"}), "--ids: 4294967296 is out of range");
  expect_usage_error(with({"--ids", "1,-4294967295"}), "--ids: -4294967295 is out of range");
  expect_usage_error(with({"--ids", "1,2", "--rows", "4294967297"}), "--rows: 4294967297");
  expect_usage_error(with({"--ids", "1,2", "--positions", "99999999999999999999"}),
                     "--positions: 99999999999999999999 is out of range");
  expect_usage_error(with({"--ids", "1,2", "--positions", "4294967296"}), "position 4294967296");
  expect_usage_error(with({"--ids", "1,x"}), "'x' is not an integer");
  const CliResult ok = run(with({"--ids", "1,2", "--rows", "3"}));
  EXPECT_EQ(ok.code, 0) << ok.err;
}

TEST_F(HostileArgs, FpsMustBeAFiniteRateAGifCanShow) {
  for (const std::string bad : {"nan", "inf", "-inf", "0", "-3", "0.05", "101", "1e300"}) {
    SCOPED_TRACE(bad);
    expect_usage_error(
        {"env", "play", "CartPole-v1", "--fps", bad, "--steps", "1", "--gif", file("x.gif")},
        "--fps");
    EXPECT_FALSE(std::filesystem::exists(file("x.gif")));
  }
  const CliResult ok =
      run({"env", "play", "CartPole-v1", "--fps", "100", "--steps", "1", "--gif", file("x.gif")});
  EXPECT_EQ(ok.code, 0) << ok.err;
}

TEST_F(HostileArgs, AnEmptyStateIsRefusedBeforeAnyModelLoads) {
  for (const std::string state : {"", "  \t"}) {
    expect_usage_error({"decide", "--rule", "If it rains, choose A.", "--option", "A=stay in",
                        "--option", "B=go out", "--state", state, "--model", file("none.gguf")},
                       "--state is empty");
  }
}

}  // namespace
