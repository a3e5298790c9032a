// Runs the meadow-mind binary from a test through the shell and captures exit code, stdout
// and stderr (shared by the tests/cli suites).
#pragma once

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

// Runs `PREFIX MEADOW_CLI ARGS 2>STDERR_PATH`: `args` is shell text (quote it with quoted());
// `prefix` may hold e.g. "cd DIR &&" or "env -u MEADOW_MIND_MODEL".
CliResult run_cli(const std::string& args, const std::string& prefix,
                  const std::string& stderr_path);

}  // namespace meadow::cli_test
