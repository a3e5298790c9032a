// util::AtomicFile: a failed write leaves the target as it was and removes only its own
// temporary file; a device is written in place, never replaced; racing writers leave one
// complete file.
#include "util/atomic_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "meadow/error.hpp"

namespace {

namespace fs = std::filesystem;
using meadow::util::AtomicFile;

class AtomicFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("meadow-atomic-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }
  std::string read(const std::string& path) const {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  void write(const std::string& path, const std::string& text) const {
    std::ofstream(path, std::ios::binary) << text;
  }
  // Entries of the test folder: a leftover temporary file shows up here.
  size_t entries() const {
    return static_cast<size_t>(std::distance(fs::directory_iterator(dir_), {}));
  }
  static void put(AtomicFile& f, const std::string& text) {
    ASSERT_EQ(std::fwrite(text.data(), 1, text.size(), f.stream()), text.size());
  }

  fs::path dir_;
};

TEST_F(AtomicFileTest, CommitReplacesTheTargetWithTheWholeText) {
  const std::string path = file("out.txt");
  write(path, "old");
  {
    AtomicFile f(path);
    put(f, "new text");
    EXPECT_EQ(read(path), "old");  // not visible before commit
    f.commit();
  }
  EXPECT_EQ(read(path), "new text");
  EXPECT_EQ(entries(), 1u);
}

TEST_F(AtomicFileTest, AnUncommittedWriteLeavesTheTargetAndNoTemporaryFile) {
  const std::string existing = file("keep.gif");
  write(existing, "precious");
  {
    AtomicFile f(existing);
    put(f, "half a fr");
  }  // e.g. an exception before commit
  EXPECT_EQ(read(existing), "precious");
  EXPECT_EQ(entries(), 1u);

  const std::string fresh = file("fresh.gif");
  { AtomicFile f(fresh); }
  EXPECT_FALSE(fs::exists(fresh));
  EXPECT_EQ(entries(), 1u);
}

TEST_F(AtomicFileTest, AFolderOrAMissingFolderIsAClearErrorAndNothingIsTouched) {
  fs::create_directories(file("sub"));
  write(file("sub/inside"), "x");
  try {
    AtomicFile f(file("sub"));
    FAIL() << "a folder was accepted";
  } catch (const meadow::Error& e) {
    EXPECT_NE(std::string(e.what()).find("folder"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read(file("sub/inside")), "x");
  try {
    AtomicFile f(file("no/such/dir/x.gif"));
    FAIL() << "a missing folder was accepted";
  } catch (const meadow::Error& e) {
    EXPECT_NE(std::string(e.what()).find("folder " + file("no/such/dir") + " does not exist"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(AtomicFile(""), meadow::Error);
  EXPECT_EQ(entries(), 1u);
}

// A folder that exists but where no file can be created (/proc/self answers ENOENT to
// O_CREAT): the error gives that reason, not "does not exist".
TEST_F(AtomicFileTest, AFolderThatExistsButTakesNoFilesIsNotCalledMissing) {
  if (!fs::is_directory("/proc/self")) GTEST_SKIP() << "no /proc";
  try {
    AtomicFile f("/proc/self/x.gif");
    FAIL() << "a file was created in /proc/self";
  } catch (const meadow::Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find("does not exist"), std::string::npos) << what;
    EXPECT_NE(what.find("files cannot be created in folder /proc/self"), std::string::npos) << what;
    EXPECT_NE(what.find("No such file or directory"), std::string::npos) << what;  // the errno
  }
}

TEST_F(AtomicFileTest, ADeviceIsWrittenInPlaceAndAFailureNeverRemovesIt) {
  if (::access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no writable /dev/full";
  {
    AtomicFile f("/dev/full");
    std::string big(1 << 16, 'x');
    // stdio may buffer the write; the error shows at latest when commit() flushes.
    const bool wrote = std::fwrite(big.data(), 1, big.size(), f.stream()) == big.size();
    if (wrote) {
      EXPECT_THROW(f.commit(), meadow::Error);
    }
  }
  struct stat st {};
  ASSERT_EQ(::stat("/dev/full", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  {
    AtomicFile f("/dev/null");
    put(f, "discarded");
    f.commit();
  }
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST_F(AtomicFileTest, ASymbolicLinkKeepsPointingAtTheNewFile) {
  write(file("real.txt"), "old");
  fs::create_symlink("real.txt", file("link.txt"));
  {
    AtomicFile f(file("link.txt"));
    put(f, "new");
    f.commit();
  }
  EXPECT_TRUE(fs::is_symlink(file("link.txt")));
  EXPECT_EQ(read(file("real.txt")), "new");
}

TEST_F(AtomicFileTest, AReplacedFileKeepsItsMode) {
  const std::string path = file("mode.txt");
  write(path, "old");
  fs::permissions(path, fs::perms(0640));
  {
    AtomicFile f(path);
    put(f, "new");
    f.commit();
  }
  EXPECT_EQ(fs::status(path).permissions() & fs::perms::mask, fs::perms(0640));
}

// Two processes write the same path at once, many times over: the file is always one
// writer's complete text, never a mix or a truncation, and no temporary file is left.
TEST_F(AtomicFileTest, RacingWritersLeaveOneCompleteFile) {
  const std::string path = file("race.txt");
  const std::string a(200000, 'a'), b(150000, 'b');
  auto writer = [&](const std::string& text, int times) {
    for (int i = 0; i < times; ++i) {
      AtomicFile f(path);
      // Written in pieces so that the two writers interleave.
      for (size_t at = 0; at < text.size(); at += 4096)
        std::fwrite(text.data() + at, 1, std::min<size_t>(4096, text.size() - at), f.stream());
      f.commit();
    }
  };
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    try {
      writer(b, 40);
    } catch (...) {
      ::_exit(1);
    }
    ::_exit(0);
  }
  for (int i = 0; i < 40; ++i) {
    writer(a, 1);
    const std::string now = read(path);
    EXPECT_TRUE(now == a || now == b) << "a torn file of " << now.size() << " bytes";
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  const std::string last = read(path);
  EXPECT_TRUE(last == a || last == b) << last.size();
  EXPECT_EQ(entries(), 1u);
}

}  // namespace
