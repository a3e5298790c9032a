// `decide` with a meadow-reader file and `read-rule`, on tiny random readers
// (tests/reader/reader_fixture.hpp): the JSON hook with the reading and each literal's
// probability, the short human form, and exit 2 with one message for an unreadable rule, a bert
// file without the heads, and bad usage.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_run.hpp"
#include "reader_fixture.hpp"

namespace {

using meadow::cli_test::CliResult;
using meadow::cli_test::quoted;
using nlohmann::json;

CliResult run(const std::string& args) {
  return meadow::cli_test::run_cli(args, "", "/dev/null");
}

CliResult run_err(const std::string& args) {
  const std::string err = meadow::reader_test::tiny_path("cli_stderr") + ".txt";
  CliResult r = meadow::cli_test::run_cli(args, "", err);
  r.err = meadow::cli_test::read_file(err);
  return r;
}

// Every rule token I: each option's condition is the whole rule; no default.
const std::string& whole_rule_reader() {
  static const std::string path = [] {
    meadow::reader_test::TinyReader spec;
    spec.tag_bias[2] = 50;
    spec.default_bias = -50;
    return meadow::reader_test::write_tiny_reader(meadow::reader_test::tiny_path("cli_whole"),
                                                  spec);
  }();
  return path;
}

// Nothing tagged, no default: unreadable.
const std::string& blind_reader() {
  static const std::string path = [] {
    meadow::reader_test::TinyReader spec;
    spec.tag_bias[0] = 50;
    spec.default_bias = -50;
    return meadow::reader_test::write_tiny_reader(meadow::reader_test::tiny_path("cli_blind"),
                                                  spec);
  }();
  return path;
}

const std::string kRule = "If the kettle whistles, choose C. Otherwise A.";

std::string args(const std::string& model, bool with_state = true) {
  std::vector<std::string> a = {"--model",          model,      "--rule",         kRule, "--option",
                                "C=sound the horn", "--option", "A=keep the lamp"};
  if (with_state) a.insert(a.end(), {"--state", "the kettle whistles"});
  return quoted(a);
}

TEST(ReaderCommands, DecideJsonCarriesTheReadingAndEachLiteralsProbability) {
  const CliResult r = run("decide --json " + args(whole_rule_reader()));
  ASSERT_EQ(r.code, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["letter"], "C");
  EXPECT_NEAR(j["probs"]["C"].get<double>() + j["probs"]["A"].get<double>(), 1.0, 1e-9);
  EXPECT_GT(j["lat_ms"].get<double>(), 0.0);
  EXPECT_GT(j["read_ms"].get<double>(), 0.0);
  EXPECT_TRUE(j.contains("margin"));
  EXPECT_EQ(j["model"], whole_rule_reader());
  const json& reading = j["reading"];
  EXPECT_TRUE(reading["default"].is_null());
  ASSERT_EQ(reading["options"].size(), 2u);
  const json& c = reading["options"][0];
  EXPECT_EQ(c["letter"], "C");
  EXPECT_EQ(c["text"], "sound the horn");
  EXPECT_EQ(c["default"], false);
  const json& lit = c["clauses"][0]["literals"][0];
  EXPECT_EQ(lit["text"], kRule);
  EXPECT_EQ(lit["words"], kRule);
  EXPECT_GE(lit["p"].get<double>(), 0.0);
  EXPECT_LE(lit["p"].get<double>(), 1.0);
  EXPECT_EQ(c["p_condition"], lit["p"]);
  EXPECT_EQ(reading["unreadable"], "");
  EXPECT_EQ(reading["unclaimed"], json::array());
}

TEST(ReaderCommands, DecideHumanFormIsALineAndTheReading) {
  const CliResult r = run("decide " + args(whole_rule_reader()));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("C  (C ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("  C \"sound the horn\" if \"" + kRule + "\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  A \"keep the lamp\" if"), std::string::npos) << r.out;
}

TEST(ReaderCommands, ReadRulePrintsTheReading) {
  const CliResult r = run("read-rule --json " + args(whole_rule_reader(), false));
  ASSERT_EQ(r.code, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["options"][1]["clauses"][0]["literals"][0]["text"], kRule);
  EXPECT_FALSE(j["options"][1]["clauses"][0]["literals"][0].contains("p"));  // nothing judged
  EXPECT_GT(j["read_ms"].get<double>(), 0.0);
  EXPECT_EQ(run("read-rule " + args(whole_rule_reader(), false)).code, 0);
}

TEST(ReaderCommands, AnUnreadableRuleExitsTwoNamingTheWords) {
  const CliResult d = run_err("decide --json " + args(blind_reader()));
  EXPECT_EQ(d.code, 2);
  EXPECT_EQ(d.out, "");
  EXPECT_NE(d.err.find("no condition for any option and no default"), std::string::npos) << d.err;
  EXPECT_NE(d.err.find("words no option claimed: '" + kRule + "'"), std::string::npos) << d.err;
  // read-rule prints the reading, then fails with the same message.
  const CliResult r = run_err("read-rule --json " + args(blind_reader(), false));
  EXPECT_EQ(r.code, 2);
  const json j = json::parse(r.out);
  EXPECT_NE(j["unreadable"].get<std::string>().find("no condition"), std::string::npos);
  EXPECT_EQ(j["unreachable"], json({"C", "A"}));
  EXPECT_NE(r.err.find("no condition"), std::string::npos) << r.err;
}

TEST(ReaderCommands, BadInputExitsTwo) {
  meadow::reader_test::TinyReader headless;
  headless.skip = {"reader.tag.weight"};
  const std::string no_heads = meadow::reader_test::write_tiny_reader(
      meadow::reader_test::tiny_path("cli_headless"), headless);
  const CliResult h = run_err("decide " + args(no_heads));
  EXPECT_EQ(h.code, 2);
  EXPECT_NE(h.err.find("missing reader.tag.weight"), std::string::npos) << h.err;
  EXPECT_EQ(run("decide --lora x.gguf " + args(whole_rule_reader())).code, 2);
  EXPECT_EQ(run("decide " + args(whole_rule_reader()) + " --option C=again").code, 2);  // twice
  EXPECT_EQ(run("read-rule " + args(whole_rule_reader(), false) + " --option Cx").code, 2);
  EXPECT_EQ(run("read-rule --rule x --option A=y").code, 2);  // --model is required
  EXPECT_EQ(run("decide " + quoted({"--model", whole_rule_reader(), "--rule", kRule, "--option",
                                    "C=x", "--state", "   "}))
                .code,
            2);
}

}  // namespace

namespace {

TEST(ReaderCommands, CheckPrintsTheReadingBeforeTheExamAndRefusesAnUnreadableRule) {
  const CliResult r = run("check cartpole --model " + quoted({whole_rule_reader()}));
  EXPECT_TRUE(r.code == 0 || r.code == 1) << r.code;  // a random reader may fail the exam
  const size_t reading = r.out.find("how the rule was read:\n  A \"push the cart left\" if \"");
  const size_t table = r.out.find("  #  exp  got");
  EXPECT_NE(reading, std::string::npos) << r.out;
  EXPECT_NE(table, std::string::npos) << r.out;
  EXPECT_LT(reading, table);
  const CliResult blind = run_err("check cartpole --model " + quoted({blind_reader()}));
  EXPECT_EQ(blind.code, 2);
  EXPECT_NE(blind.err.find("task cartpole: the reader found no condition for any option"),
            std::string::npos)
      << blind.err;
}

}  // namespace

namespace {

TEST(ReaderCommands, ReadingScoresAReaderAndCountsWhatItRefused) {
  const std::string set = meadow::reader_test::tiny_path("cli_set") + ".jsonl";
  std::ofstream(set)
      << R"({"id":"a-1","domain":"a","forms":["if"],"rule":"If it rains, choose B. Otherwise choose A.","options":[["A","walk"],["B","take the bus"]],"state":"It is raining hard.","answer":"B"})"
      << "\n"
      << R"({"id":"b-1","domain":"b","forms":["colon"],"rule":"Smoke: C. Quiet: A.","options":[["C","ring the bell"],["A","wait"]],"state":"Smoke rises.","answer":"C"})"
      << "\n";
  const CliResult r = run("reading --json --set " + quoted({set}) + " --model " +
                          quoted({whole_rule_reader()}) + " --model " + quoted({blind_reader()}));
  ASSERT_EQ(r.code, 0) << r.out;
  std::istringstream lines(r.out);
  std::string whole, blind;
  std::getline(lines, whole);
  std::getline(lines, blind);
  const json w = json::parse(whole), b = json::parse(blind);
  EXPECT_EQ(w["arch"], "bert (meadow-reader)");
  EXPECT_EQ(w["natural"]["n"], 2);
  EXPECT_EQ(w["refused"], 0);
  EXPECT_EQ(w["cached_equals_uncached"], 1.0);
  EXPECT_EQ(b["refused"], 2);  // no condition and no default: every rule refused, none right
  EXPECT_EQ(b["natural"]["right"], 0);
  EXPECT_EQ(b["builtin_total"][0], 0);
  EXPECT_NE(b["builtin_refusals"].get<std::string>().find("no condition for any option"),
            std::string::npos);
  EXPECT_EQ(run("reading --exit-margin 0.5 --set " + quoted({set}) + " --model " +
                quoted({whole_rule_reader()}))
                .code,
            2);
}

}  // namespace

namespace {

TEST(ReaderCommands, PlayTracesEachDecisionsConditions) {
  const std::string trace = meadow::reader_test::tiny_path("cli_trace") + ".jsonl";
  const CliResult r =
      run("play cartpole --model " + quoted({whole_rule_reader()}) + " --trace " + quoted({trace}));
  EXPECT_TRUE(r.code == 0 || r.code == 1) << r.out;  // a random reader may drop the pole
  std::ifstream in(trace);
  std::string line;
  ASSERT_TRUE(std::getline(in, line)) << r.out;
  const json j = json::parse(line);
  ASSERT_TRUE(j.contains("conditions")) << line;
  ASSERT_EQ(j["conditions"].size(), 2u);
  EXPECT_EQ(j["conditions"][0]["letter"], "A");
  EXPECT_EQ(j["conditions"][1]["letter"], "B");
  EXPECT_GE(j["conditions"][0]["p"].get<double>(), 0.0);
}

}  // namespace
