// The tasks' commands through the binary: list --json, the exam-failure path (a random-weight
// model fails the exam: exit 1 with the listing, no episode), play writing trace and GIF,
// bench JSON, and bad input exiting 2 with one line.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_run.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using Result = meadow::cli_test::CliResult;

class TaskCli : public meadow::cli_test::CliTestDir {
 protected:
  TaskCli() : CliTestDir("meadow-task-cli-") {}

  // A random-weight dream model with the embedded model's tokenizer, made once per process.
  static std::string random_model() {
    static const std::string path = [] {
      const auto dir = fs::path(MEADOW_BINARY_DIR) / "task_cli_fixtures";
      fs::create_directories(dir);
      const std::string out = (dir / "random_dream.gguf").string();
      const std::string cmd = std::string(MEADOW_PYTHON) + " " + MEADOW_SOURCE_DIR +
                              "/tests/decision/make_train_fixture.py --seed 5 --out " +
                              meadow::cli_test::shell_quote(out);
      EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
      return out;
    }();
    return path;
  }

  Result run(const std::vector<std::string>& args) const {
    // MEADOW_MIND_MODEL would override --model; the tests name their model.
    return meadow::cli_test::run_cli(
        meadow::cli_test::quoted(args),
        "cd " + meadow::cli_test::shell_quote(dir_.string()) + " && env -u MEADOW_MIND_MODEL",
        file("stderr.txt"));
  }
};

TEST_F(TaskCli, ListJsonHoldsEveryTaskDefinition) {
  const Result r = run({"list", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const json j = json::parse(r.out);
  ASSERT_EQ(j.size(), 7u);
  for (const auto& t : j) {
    EXPECT_FALSE(t.at("rule").get<std::string>().empty());
    EXPECT_GE(t.at("options").size(), 2u);
    // shapes' perceiver writes five sentences in all; its exam holds every one of them.
    EXPECT_GE(t.at("exam").size(), t.at("name") == "shapes" ? 5u : 8u);
    EXPECT_FALSE(t.at("seeds").empty());
  }
  EXPECT_EQ(j[0].at("name"), "cartpole");
  const Result plain = run({"list"});
  EXPECT_EQ(plain.code, 0);
  EXPECT_NE(plain.out.find("mountaincar"), std::string::npos);
}

TEST_F(TaskCli, FailedExamExitsOneWithTheListingAndPlaysNothing) {
  const std::string model = random_model();
  Result r = run({"check", "cartpole", "--model", model});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("FAIL"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the pole is falling left and leans slightly left"), std::string::npos);
  r = run({"cartpole", "--model", model});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("FAIL"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir_ / "out" / "cartpole.gif")) << "no episode after a failed exam";
}

TEST_F(TaskCli, PlayWritesTraceAndGifAndPrintsVerdictAndLatency) {
  const Result r = run({"play", "frozenlake", "--model", random_model(), "--gif", file("f.gif"),
                        "--trace", file("f.jsonl")});
  // A random model misses the target (exit 1) but the episode is fully recorded.
  EXPECT_TRUE(r.code == 0 || r.code == 1) << r.err;
  EXPECT_NE(r.out.find("latency p50"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gif: " + file("f.gif")), std::string::npos) << r.out;
  std::ifstream in(file("f.jsonl"));
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    const json j = json::parse(line);
    EXPECT_TRUE(j.contains("status") && j.contains("letter") && j.contains("probs") &&
                j.contains("action") && j.contains("reward") && j.contains("lat_ms"));
    ++n;
  }
  EXPECT_GE(n, 1);
  EXPECT_NE(r.out.find("decisions " + std::to_string(n)), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(file("f.gif")));
}

TEST_F(TaskCli, SeveralEpisodesGetOneFilePerSeedAndAJointVerdict) {
  const Result r = run(
      {"play", "cartpole", "--model", random_model(), "--episodes", "2", "--gif", file("c.gif")});
  EXPECT_EQ(r.code, 1) << r.err;  // a random model does not balance the pole
  EXPECT_TRUE(fs::exists(file("c-seed0.gif")));
  EXPECT_TRUE(fs::exists(file("c-seed1.gif")));
  EXPECT_NE(r.out.find("verdict: FAIL balanced 500/500 steps on 0/2 seeds"), std::string::npos)
      << r.out;
}

TEST_F(TaskCli, BenchPrintsLatencyPerTask) {
  const Result r = run({"bench", "--model", random_model(), "--decisions", "3", "--threads", "2"});
  ASSERT_EQ(r.code, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j.at("threads").get<int>(), 2);
  ASSERT_EQ(j.at("tasks").size(), 7u);
  for (const auto& [name, t] : j.at("tasks").items())
    for (const char* mode : {"cached", "uncached"}) {
      EXPECT_GT(t.at(mode).at("p50_ms").get<double>(), 0.0) << name << " " << mode;
      EXPECT_GE(t.at(mode).at("p95_ms").get<double>(), t.at(mode).at("p50_ms").get<double>())
          << name << " " << mode;
    }
}

TEST_F(TaskCli, BadInputExitsTwoWithOneLine) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"check", "pong"},
        {"play", "cartpole", "--memory", "maybe"},
        {"play", "cartpole", "--memory", "on", "--model", random_model()},
        {"play", "cartpole", "--model", file("missing.gguf")},
        {"bench", "--threads", "-1"},
        {"check", "cartpole", "--float-recheck", "2"}}) {
    const Result r = run(args);
    EXPECT_EQ(r.code, 2) << args[0] << " " << args[1] << ": " << r.err;
    EXPECT_FALSE(r.err.empty());
  }
  const Result r = run({"check", "pong"});
  EXPECT_EQ(r.err,
            "error: unknown task 'pong'; built-in tasks: cartpole, mountaincar, "
            "frozenlake, lunarlander, maze, parkour, shapes\n");
}

}  // namespace

// The real-time games' commands: bad input exits 2 before any model loads; a model that fails
// the exam plays nothing (no GIF). Their real-time runs are measured, not unit-tested.
TEST_F(TaskCli, RealtimeGamesCheckInputAndTheExamFirst) {
  Result r = run({"parkour", "--window", "5"});
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("--window is for shapes only"), std::string::npos) << r.err;
  r = run({"shapes", "--contender-tokens", "0"});
  EXPECT_EQ(r.code, 2) << r.err;
  r = run({"shapes", "--model", random_model(), "--contender", "off", "--gif", "s.gif"});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("the square is red"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(file("s.gif")));
}
