// util::read_file: every file a command reads goes through it. A FIFO never blocks, a folder
// or a device is named as such, and no more than the cap is read (before reading, by the
// size, and while reading, for files that grow or whose size says 0).
#include "util/read_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "meadow/error.hpp"

namespace {

namespace fs = std::filesystem;
using meadow::util::read_file;

class ReadFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("meadow-read-file-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }

  // The error read_file gives for path, or "" when it reads.
  static std::string error_of(const std::string& path, size_t cap = meadow::util::kMaxReadFile) {
    try {
      (void)read_file(path, cap);
      return "";
    } catch (const meadow::Error& e) {
      return e.what();
    }
  }

  fs::path dir_;
};

TEST_F(ReadFileTest, ReadsARegularFileWhole) {
  const std::string text("line one\nline\0two\n", 18);
  std::ofstream(file("a.txt"), std::ios::binary) << text;
  EXPECT_EQ(read_file(file("a.txt")), text);
  std::ofstream(file("empty.txt"));
  EXPECT_EQ(read_file(file("empty.txt")), "");
  EXPECT_EQ(read_file(file("a.txt"), text.size()), text);  // exactly the cap is fine
}

TEST_F(ReadFileTest, NamesWhatIsNotARegularFile) {
  const std::string folder = error_of(dir_.string());
  EXPECT_NE(folder.find("cannot read " + dir_.string() + ": it is a folder"), std::string::npos)
      << folder;
  const std::string zero = error_of("/dev/zero");
  EXPECT_NE(zero.find("/dev/zero: it is a character device"), std::string::npos) << zero;
  const std::string missing = error_of(file("missing.json"));
  EXPECT_NE(missing.find("missing.json: No such file or directory"), std::string::npos) << missing;
}

// A FIFO with no writer: open() without O_NONBLOCK would wait forever. The alarm kills the
// test binary (a failure, not a hang) if that ever comes back.
TEST_F(ReadFileTest, AFifoIsRefusedWithoutBlocking) {
  ASSERT_EQ(::mkfifo(file("pipe").c_str(), 0600), 0);
  ::alarm(20);
  const std::string e = error_of(file("pipe"));
  ::alarm(0);
  EXPECT_NE(e.find("pipe: it is a FIFO (named pipe), not a regular file"), std::string::npos) << e;
}

TEST_F(ReadFileTest, MoreThanTheCapIsRefused) {
  // By its size, before anything is read: a sparse file of cap + 1 bytes.
  const std::string big = file("big");
  { std::ofstream(big, std::ios::binary); }
  fs::resize_file(big, meadow::util::kMaxReadFile + 1);
  const std::string e = error_of(big);
  EXPECT_NE(e.find("big: larger than 64 MiB"), std::string::npos) << e;
  std::ofstream(file("small"), std::ios::binary) << std::string(100, 'x');
  EXPECT_NE(error_of(file("small"), 99).find("larger than 99 bytes"), std::string::npos);
  // While reading: /proc files say size 0 and hold more.
  if (fs::exists("/proc/self/status")) {
    const std::string p = error_of("/proc/self/status", 16);
    EXPECT_NE(p.find("larger than 16 bytes"), std::string::npos) << p;
  }
}

}  // namespace
