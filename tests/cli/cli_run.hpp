// Runs the meadow-mind binary from a test through the shell and captures exit code, stdout
// and stderr (shared by the tests/cli suites).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

namespace meadow::cli_test {

struct CliResult {
  int code = -1;  // exit status; -1 when the process did not exit normally
  std::string out, err;
};

// Single-quotes s for /bin/sh.
std::string shell_quote(const std::string& s);
// Each argument quoted, joined with spaces.
std::string quoted(const std::vector<std::string>& args);
// The whole file, or "" if it cannot be read.
std::string read_file(const std::filesystem::path& p);

// Runs `PREFIX MEADOW_CLI ARGS 2>STDERR_PATH` (OPENBLAS_CORETYPE unset): `args` is shell text
// (quote it with quoted()); `prefix` may hold e.g. "cd DIR &&" or "env -u MEADOW_MIND_MODEL".
CliResult run_cli(const std::string& args, const std::string& prefix,
                  const std::string& stderr_path);

// A fixture with a fresh temporary folder per test, removed afterwards.
class CliTestDir : public ::testing::Test {
 protected:
  explicit CliTestDir(std::string prefix) : prefix_(std::move(prefix)) {}
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           (prefix_ + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }

  std::string prefix_;
  std::filesystem::path dir_;
};

}  // namespace meadow::cli_test
