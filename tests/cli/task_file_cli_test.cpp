// `meadow-mind check FILE` and `play FILE` with task files: a good file plays like the
// built-in task; a bad one exits 2 before any model loads, its message naming the line and
// field; a perceiver whose longest sentence cannot fit the model is refused at check time.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "cli_run.hpp"

namespace {

using meadow::cli_test::CliResult;
using meadow::cli_test::quoted;

class TaskFileCli : public meadow::cli_test::CliTestDir {
 protected:
  TaskFileCli() : CliTestDir("meadow-task-file-cli-") {}
  CliResult run(const std::vector<std::string>& args) {
    const std::string err = file("stderr.txt");
    CliResult r = meadow::cli_test::run_cli(quoted(args), "", err);
    r.err = meadow::cli_test::read_file(err);
    return r;
  }
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(file(name)) << text;
    return file(name);
  }
};

std::string shipped(const std::string& rel) {
  return std::string(MEADOW_SOURCE_DIR) + "/" + rel;
}

TEST_F(TaskFileCli, CheckAndPlayAShippedFile) {
  const CliResult c = run({"check", shipped("tasks/cartpole.toml")});
  EXPECT_EQ(c.code, 0) << c.out << c.err;
  EXPECT_NE(c.out.find("exam cartpole: 10/10 right"), std::string::npos) << c.out;
  const CliResult p = run({"play", shipped("examples/tasks/cliffwalking.toml"), "--gif",
                           file("cliff.gif"), "--trace", file("cliff.jsonl")});
  EXPECT_EQ(p.code, 0) << p.out << p.err;
  EXPECT_NE(p.out.find("PASS reward -13.0 in 13 steps"), std::string::npos) << p.out;
  EXPECT_FALSE(meadow::cli_test::read_file(file("cliff.jsonl")).empty());
}

TEST_F(TaskFileCli, ABadFileExitsTwoNamingTheLineAndField) {
  std::string text = meadow::cli_test::read_file(shipped("tasks/cartpole.toml"));
  text.replace(text.find("at_most = 0, say = \"left\" }, { say = \"right\" }"),
               std::string("at_most = 0, say = \"left\" }, { say = \"right\" }").size(),
               "at_most = 0, say = \"left\" }");
  const std::string path = write("bad.toml", text);
  for (const char* cmd : {"check", "play"}) {
    const CliResult r = run({cmd, path});
    EXPECT_EQ(r.code, 2) << cmd << r.out << r.err;
    EXPECT_NE(r.err.find("bad.toml:"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("perceiver.words.falling.buckets: the buckets leave values > 0 uncovered"),
              std::string::npos)
        << r.err;
  }
  const CliResult missing = run({"check", file("nowhere.toml")});
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("nowhere.toml"), std::string::npos) << missing.err;
}

TEST_F(TaskFileCli, ASentenceLongerThanTheModelCanReadIsRefusedAtCheck) {
  std::string text = meadow::cli_test::read_file(shipped("tasks/cartpole.toml"));
  const std::string from = "sentence = \"the pole is falling {falling} and {lean}\"";
  std::string many = "sentence = \"the pole is falling {falling} and {lean}";
  for (int i = 0; i < 400; ++i) many += ", at {position} with {velocity}";
  text.replace(text.find(from), from.size(), many + "\"");
  const CliResult r = run({"check", write("long.toml", text)});
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("perceiver.sentence: its longest sentence"), std::string::npos) << r.err;
}

}  // namespace
