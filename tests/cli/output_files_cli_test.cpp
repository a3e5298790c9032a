// Output paths the commands cannot write: a folder, /dev/full, a path in a missing folder.
// Each is one error line and exit 2, and nothing is deleted (`play --gif F --trace DIR` once
// deleted F; as root, `--gif` on a device node deleted the node).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_run.hpp"

namespace {

namespace fs = std::filesystem;
using meadow::cli_test::CliResult;
using meadow::cli_test::read_file;

class OutputFilesCli : public meadow::cli_test::CliTestDir {
 protected:
  OutputFilesCli() : CliTestDir("meadow-output-files-") {}
  CliResult run(const std::vector<std::string>& args) const {
    return meadow::cli_test::run_cli(meadow::cli_test::quoted(args), "", file("stderr.txt"));
  }
  void expect_error(const CliResult& r, const std::string& mention) const {
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
    EXPECT_NE(r.err.find(mention), std::string::npos) << r.err;
  }
};

TEST_F(OutputFilesCli, EnvPlayToAFolderAMissingFolderOrAFullDiskExitsTwo) {
  fs::create_directories(file("dir"));
  std::ofstream(file("dir/inside.txt")) << "x";
  const std::vector<std::string> play = {"env",     "play", "CartPole-v1", "--seed", "0",
                                         "--steps", "3"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = play;
    args.insert(args.end(), extra.begin(), extra.end());
    return run(args);
  };
  expect_error(with({"--gif", file("dir")}), "it is a folder");
  expect_error(with({"--gif", file("missing/x.gif")}),
               "folder " + file("missing") + " does not exist");
  // /proc/self exists, but no file can be created there: said so, with the errno's text.
  if (fs::is_directory("/proc/self")) {
    const CliResult proc = with({"--gif", "/proc/self/x.gif"});
    expect_error(proc, "files cannot be created in folder /proc/self (No such file or directory)");
    EXPECT_EQ(proc.err.find("does not exist"), std::string::npos) << proc.err;
  }
  if (::access("/dev/full", W_OK) == 0) {
    expect_error(with({"--gif", "/dev/full"}), "/dev/full");
    struct stat st {};
    EXPECT_EQ(::stat("/dev/full", &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode));
  }
  EXPECT_EQ(read_file(file("dir/inside.txt")), "x");
  EXPECT_EQ(std::distance(fs::directory_iterator(file("dir")), {}), 1);
  // /dev/null still takes a GIF (written in place, not replaced).
  const CliResult ok = with({"--gif", "/dev/null"});
  EXPECT_EQ(ok.code, 0) << ok.err;
}

TEST_F(OutputFilesCli, PlayWithAnUnwritableTraceKeepsTheExistingGif) {
  fs::create_directories(file("dir"));
  std::ofstream(file("keep.gif")) << "old gif";
  const CliResult r =
      run({"play", "cartpole", "--seed", "0", "--gif", file("keep.gif"), "--trace", file("dir")});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("it is a folder"), std::string::npos) << r.err;
  EXPECT_EQ(read_file(file("keep.gif")), "old gif");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), {}), 3);  // keep.gif, dir, stderr.txt
}

}  // namespace
