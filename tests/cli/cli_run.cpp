#include "cli_run.hpp"

#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace meadow::cli_test {

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string quoted(const std::vector<std::string>& args) {
  std::string text;
  for (const auto& a : args) {
    if (!text.empty()) text += ' ';
    text += shell_quote(a);
  }
  return text;
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

CliResult run_cli(const std::string& args, const std::string& prefix,
                  const std::string& stderr_path) {
  std::string cmd = prefix;
  if (!cmd.empty()) cmd += ' ';
  // A machine image may set OPENBLAS_CORETYPE to a lesser core; the CLI then warns on stderr,
  // which tests comparing stderr must not see. Without it the CLI picks the core itself.
  cmd += "env -u OPENBLAS_CORETYPE ";
  cmd += shell_quote(MEADOW_CLI);
  cmd += ' ';
  cmd += args;
  cmd += " 2>";
  cmd += shell_quote(stderr_path);
  CliResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[65536];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) r.out.append(buf, n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = read_file(stderr_path);
  return r;
}

}  // namespace meadow::cli_test
