// A model whose weights hold NaN gives NaN logits. Only `decide` used to stop on it: `generate`
// printed NUL characters with exit 0, `infill` exited 0, `draft` and `route` printed "Σ -nan".
// Now every command that reads logits stops at the one check (decision::check_finite): no
// output, one error line naming the model file, and exit 3 (a broken model, not bad usage).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli_run.hpp"

#include "../decision/mind_fixture.hpp"

namespace {

using meadow::cli_test::CliResult;
using meadow::cli_test::quoted;

class NanModel : public meadow::cli_test::CliTestDir {
 protected:
  NanModel() : CliTestDir("meadow-nan-model-") {}
  static const std::string& dream() {
    static const std::string path = meadow::mind_test::make_fixture(
        "nan-dream", "--arch dream --vocab 512 --nan-tensor output_norm.weight");
    return path;
  }
  static const std::string& qwen2() {
    static const std::string path = meadow::mind_test::make_fixture(
        "nan-qwen2-cli", "--arch qwen2 --vocab 512 --nan-tensor output_norm.weight");
    return path;
  }
  void expect_model_error(std::vector<std::string> args, const std::string& model) const {
    args.push_back("--model");
    args.push_back(model);
    std::string cmd;
    for (const auto& a : args) cmd += a + " ";
    const CliResult r =
        meadow::cli_test::run_cli(quoted(args), "env -u MEADOW_MIND_MODEL", file("stderr.txt"));
    EXPECT_EQ(r.code, 3) << cmd << "\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << cmd << "\n" << quoted({r.out.substr(0, 100)});
    EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << cmd << "\n" << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << cmd << "\n" << r.err;
    EXPECT_NE(r.err.find("non-finite logits"), std::string::npos) << cmd << "\n" << r.err;
    EXPECT_NE(r.err.find(model), std::string::npos) << cmd << "\n" << r.err;
  }
};

TEST_F(NanModel, EveryCommandReadingLogitsExitsThreeNamingTheModel) {
  for (const std::string& m : {dream(), qwen2()}) {
    SCOPED_TRACE(m);
    expect_model_error({"generate", "--prompt", "Say hello.", "--max-tokens", "4"}, m);
    expect_model_error({"generate", "--prompt", "Say hello.", "--max-tokens", "4", "--json"}, m);
    expect_model_error({"draft", "--prompt", "Say hello.", "--length", "4"}, m);
    expect_model_error({"route", "--prompt", "Say hello."}, m);
    expect_model_error({"decide", "--rule", "If it rains, choose B. Otherwise choose A.",
                        "--option", "A=walk", "--option", "B=take the bus", "--state", "It rains."},
                       m);
  }
  expect_model_error({"generate", "--prompt", "Say hello.", "--max-tokens", "4", "--no-cache"},
                     dream());
  expect_model_error({"infill", "--before", "The cart", "--after", " fast.", "--tokens", "3"},
                     dream());
  expect_model_error({"tool-call", "--prompt", "read a.txt", "--tool", "read_file"}, dream());
}

}  // namespace
