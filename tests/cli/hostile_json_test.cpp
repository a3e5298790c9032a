// JSON input a user or a script got wrong: nested past any stack, numbers no double holds.
// Each is one error line naming the input, exit 2; never a crash (a Release build died with
// SIGSEGV on 70,000 nested arrays when the error text dumped them).
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "cli_run.hpp"

namespace {

using meadow::cli_test::CliResult;

class HostileJson : public meadow::cli_test::CliTestDir {
 protected:
  HostileJson() : CliTestDir("meadow-hostile-json-") {}

  CliResult run(const std::vector<std::string>& args) const {
    return meadow::cli_test::run_cli(meadow::cli_test::quoted(args), "", file("stderr.txt"));
  }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(file(name)) << text;
    return file(name);
  }
  // Exit 2, nothing on stdout, one line on stderr holding every one of `mentions`.
  void expect_one_line_error(const CliResult& r, const std::vector<std::string>& mentions) const {
    EXPECT_EQ(r.code, 2) << r.err.substr(0, 300);
    EXPECT_TRUE(r.out.empty());
    EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err.substr(0, 300);
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err.substr(0, 300);
    EXPECT_LT(r.err.size(), 400u) << r.err.substr(0, 300);
    for (const auto& m : mentions)
      EXPECT_NE(r.err.find(m), std::string::npos) << m << "\n" << r.err;
  }
};

std::string nested(size_t depth, const std::string& inner = "") {
  return std::string(depth, '[') + inner + std::string(depth, ']');
}

TEST_F(HostileJson, DeeplyNestedActionsFileIsAnErrorNotACrash) {
  for (size_t depth : {20000u, 70000u}) {
    const std::string actions = write("deep.json", nested(depth));
    for (const char* env : {"CartPole-v1", "Pendulum-v1"})
      expect_one_line_error(run({"env", "run", env, "--seed", "0", "--actions", actions}),
                            {"deep.json", "nested deeper than 64 levels"});
  }
  // 64 levels still parse (a Box action's nesting is flattened), 65 do not.
  const CliResult d64 = run({"env", "run", "Pendulum-v1", "--seed", "0", "--actions",
                             write("d64.json", "[" + nested(63, "0.5") + "]")});
  EXPECT_EQ(d64.code, 0) << d64.err;
  expect_one_line_error(run({"env", "run", "Pendulum-v1", "--seed", "0", "--actions",
                             write("d65.json", "[" + nested(64, "0.5") + "]")}),
                        {"d65.json", "nested deeper than 64 levels"});
}

TEST_F(HostileJson, DeeplyNestedKwargsAreAnErrorNotACrash) {
  const std::string ok = write("ok.json", "[0]");
  // A command-line argument holds at most 128 KiB: 60,000 levels fit.
  const std::string deep = nested(60000);
  for (const std::string& kwargs : {deep, "{\"sutton_barto_reward\": " + deep + "}"}) {
    expect_one_line_error(
        run({"env", "run", "CartPole-v1", "--kwargs", kwargs, "--seed", "0", "--actions", ok}),
        {"--kwargs", "nested deeper than 64 levels"});
    expect_one_line_error(run({"env", "play", "CartPole-v1", "--kwargs", kwargs, "--steps", "1"}),
                          {"--kwargs", "nested deeper than 64 levels"});
  }
  // Shallow but long values are quoted cut short.
  std::string wide = "[";
  for (int i = 0; i < 20000; ++i) wide += "1,";
  wide += "1]";
  expect_one_line_error(
      run({"env", "run", "CartPole-v1", "--kwargs", wide, "--seed", "0", "--actions", ok}),
      {"--kwargs must be a JSON object", "..."});
  expect_one_line_error(
      run({"env", "run", "CartPole-v1", "--kwargs", "{\"sutton_barto_reward\": " + wide + "}",
           "--seed", "0", "--actions", ok}),
      {"sutton_barto_reward", "..."});
}

// An actions "file" that never ends, or is a folder, is an error, not all the memory
// (tests/cli/endless_inputs_test.cpp has the FIFO and the file over the cap).
TEST_F(HostileJson, EndlessOrFolderActionsFilesAreErrors) {
  expect_one_line_error(run({"env", "run", "CartPole-v1", "--seed", "0", "--actions", "/dev/zero"}),
                        {"/dev/zero", "it is a character device"});
  expect_one_line_error(run({"env", "run", "CartPole-v1", "--seed", "0", "--actions", dir_}),
                        {"cannot read", "it is a folder"});
}

TEST_F(HostileJson, NumbersNoDoubleHoldsNameTheFileTheIndexAndTheProblem) {
  struct Case {
    const char* env;
    const char* text;
    std::vector<std::string> mentions;
  };
  const Case cases[] = {
      {"CartPole-v1", "[0, 1e400]", {"n.json", "[1]", "'1e400' is out of range of a double"}},
      {"CartPole-v1",
       "[99999999999999999999999]",
       {"n.json", "[0]", "'99999999999999999999999' does not fit in 64 bits"}},
      {"CartPole-v1", "[18446744073709551615]", {"n.json", "action 0", "not in Discrete(2)"}},
      {"Pendulum-v1", "[[0.5], [-1e400]]", {"n.json", "[1][0]", "out of range of a double"}},
      {"Pendulum-v1", "[[1e39]]", {"n.json", "action 0", "out of range of float32"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    expect_one_line_error(
        run({"env", "run", c.env, "--seed", "0", "--actions", write("n.json", c.text)}),
        c.mentions);
  }
  expect_one_line_error(run({"env", "run", "Pendulum-v1", "--kwargs", "{\"g\": 1e999}", "--seed",
                             "0", "--actions", write("ok.json", "[]")}),
                        {"--kwargs", "['g']", "out of range of a double"});
}

}  // namespace
