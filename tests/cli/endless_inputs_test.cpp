// Files a command reads that never end or never open: `tool-call --tools /dev/zero` and
// `reading --set /dev/zero` once grew to 7 GB in 8 s, and `--lora` on a FIFO blocked forever.
// Every such file now goes through one bounded, type-checked reader (util/read_file.hpp; GGUF
// files through gguf::File::open): a FIFO, a device, a folder or a file over the cap is one
// error line and exit 2, at once and in little memory. Each run is under `timeout` (a hang is
// a failure, not a stuck test) and, outside sanitizer builds, a 4 GiB address-space limit.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_run.hpp"

namespace {

namespace fs = std::filesystem;
using meadow::cli_test::CliResult;

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;  // ASan reserves terabytes of address space: no ulimit -v
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

class EndlessInputs : public meadow::cli_test::CliTestDir {
 protected:
  EndlessInputs() : CliTestDir("meadow-endless-inputs-") {}
  CliResult run(const std::vector<std::string>& args) const {
    std::string prefix = kSanitized ? "" : "ulimit -v 4194304 &&";
    prefix += " env -u MEADOW_MIND_MODEL timeout -s KILL 60";
    return meadow::cli_test::run_cli(meadow::cli_test::quoted(args), prefix, file("stderr.txt"));
  }
  // The commands reading `path` as a text file, and what each must say.
  std::vector<std::vector<std::string>> readers(const std::string& path) const {
    return {{"tool-call", "--prompt", "x", "--model", "nano", "--tools", path},
            {"reading", "--model", "nano", "--set", path},
            {"env", "run", "CartPole-v1", "--seed", "0", "--actions", path}};
  }
  void expect_refused(const std::vector<std::string>& args, const std::string& mention) const {
    std::string cmd;
    for (const auto& a : args) cmd += a + " ";
    const CliResult r = run(args);
    EXPECT_EQ(r.code, 2) << cmd << "\n" << r.err;  // 137: killed by the timeout (a hang)
    EXPECT_TRUE(r.out.empty()) << cmd << "\n" << r.out.substr(0, 200);
    EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << cmd << "\n" << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << cmd << "\n" << r.err;  // one line
    EXPECT_NE(r.err.find(mention), std::string::npos) << cmd << "\n" << r.err;
  }
};

TEST_F(EndlessInputs, DevZeroIsADeviceNotEndlessText) {
  for (const auto& args : readers("/dev/zero"))
    expect_refused(args, "/dev/zero: it is a character device, not a regular file");
  expect_refused({"logits", "--model", "nano", "--ids", "1,2", "--lora", "/dev/zero"},
                 "/dev/zero: it is a character device, not a regular file");
}

TEST_F(EndlessInputs, AFifoIsRefusedAtOnceNeverWaitedOn) {
  const std::string fifo = file("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const auto& args : readers(fifo))
    expect_refused(args, fifo + ": it is a FIFO (named pipe), not a regular file");
  expect_refused({"logits", "--model", "nano", "--ids", "1,2", "--lora", fifo},
                 fifo + ": it is a FIFO (named pipe), not a regular file");
  expect_refused({"decide", "--model", "nano", "--lora", fifo, "--rule", "Choose A.", "--option",
                  "A=go", "--state", "now"},
                 "it is a FIFO (named pipe)");
}

TEST_F(EndlessInputs, AFolderIsNamedAsOne) {
  for (const auto& args : readers(dir_.string()))
    expect_refused(args, dir_.string() + ": it is a folder, not a regular file");
  expect_refused({"logits", "--model", "nano", "--ids", "1,2", "--lora", dir_.string()},
                 "it is a folder, not a regular file");
}

TEST_F(EndlessInputs, AFileOverTheCapIsRefusedBeforeItIsRead) {
  const std::string big = file("big.json");
  { std::ofstream(big, std::ios::binary); }
  fs::resize_file(big, (uintmax_t(64) << 20) + 1);  // sparse: costs no disk
  for (const auto& args : readers(big)) expect_refused(args, big + ": larger than 64 MiB");
}

}  // namespace
