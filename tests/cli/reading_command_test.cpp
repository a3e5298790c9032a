// `meadow-mind reading`: counts of a small exam set on the embedded model, the table's shape,
// and bad sets exiting 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_run.hpp"

namespace {

namespace fs = std::filesystem;
using meadow::cli_test::quoted;

class ReadingCommand : public meadow::cli_test::CliTestDir {
 protected:
  ReadingCommand() : CliTestDir("meadow_reading_") {}
  meadow::cli_test::CliResult run(const std::string& args) {
    return meadow::cli_test::run_cli(args, "env -u MEADOW_MIND_MODEL", file("stderr.txt"));
  }
};

const char* kSet =
    R"({"id":"a-1","domain":"a","forms":["if"],"rule":"If it rains, choose B. Otherwise choose A.","options":[["A","walk"],["B","take the bus"]],"state":"It is raining hard.","answer":"B"})"
    "\n"
    R"({"id":"a-2","domain":"a","forms":["if","default"],"rule":"If it rains, choose B. Otherwise choose A.","options":[["A","walk"],["B","take the bus"]],"state":"The sun is out.","answer":"A"})"
    "\n"
    R"({"id":"b-1","domain":"b","forms":["colon"],"rule":"Smoke: C. Quiet: A.","options":[["C","ring the bell"],["A","wait"]],"state":"Smoke rises.","answer":"C"})"
    "\n";

TEST_F(ReadingCommand, CountsItemsFormsAndBuiltinExams) {
  std::ofstream(file("set.jsonl")) << kSet;
  const auto r = run("reading --json --model nano --set " + quoted({file("set.jsonl")}));
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["natural"]["n"], 3);
  EXPECT_LE(j["natural"]["right"].get<int>(), 3);
  EXPECT_EQ(j["by_form"]["if"][1], 2);
  EXPECT_EQ(j["by_form"]["colon"][1], 1);
  EXPECT_EQ(j["builtin_total"][1], 61);
  EXPECT_EQ(j["builtin_relabelled"][1], 61);
  EXPECT_GT(j["latency_ms"]["cached_p50"].get<double>(), 0.0);
  EXPECT_EQ(j["cached_equals_uncached"], 1.0);  // the embedded model's cache is exact

  const auto t =
      run("reading --model nano --sample 2 --no-uncached --set " + quoted({file("set.jsonl")}));
  ASSERT_EQ(t.code, 0) << t.err;
  EXPECT_NE(t.out.find("| hand-written set |"), std::string::npos) << t.out;
  EXPECT_EQ(t.out.rfind("2 items\n", 0), 0u) << t.out;
}

TEST_F(ReadingCommand, BadSetsExitTwo) {
  EXPECT_EQ(run("reading --set " + quoted({file("missing.jsonl")})).code, 2);
  std::ofstream(file("bad.jsonl")) << "{\"id\": 1}\n";
  const auto r = run("reading --set " + quoted({file("bad.jsonl")}));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("bad.jsonl:1"), std::string::npos) << r.err;
  std::ofstream(file("empty.jsonl")) << "\n";
  EXPECT_EQ(run("reading --set " + quoted({file("empty.jsonl")})).code, 2);
}

}  // namespace
