// GIF and PNG files are written whole or not at all: a failed or unfinished write leaves the
// path as it was (a GifWriter once removed its path when the first frame failed: as root,
// `--gif` on a device node deleted the node), and racing writers leave one complete file.
#include <gif_lib.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "meadow/error.hpp"
#include "meadow/render.hpp"
#include "test_files.hpp"

using meadow::Frame;
using meadow::GifWriter;

namespace {

namespace fs = std::filesystem;

Frame noise(int w, int h, unsigned seed) {
  Frame f{w, h, std::vector<uint8_t>(static_cast<size_t>(w) * h * 3)};
  for (auto& b : f.rgb) b = static_cast<uint8_t>((seed = seed * 1103515245u + 12345u) >> 16);
  return f;
}

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

size_t entries(const fs::path& dir) {
  return static_cast<size_t>(std::distance(fs::directory_iterator(dir), {}));
}

// A character device like /dev/full (writes fail with ENOSPC) inside the test folder; made
// only as root. An empty string when it cannot be made.
std::string full_device(const meadow::test::TempDir& tmp) {
  const std::string path = tmp.file("full");
  if (::geteuid() != 0 || ::mknod(path.c_str(), S_IFCHR | 0666, ::makedev(1, 7)) != 0) return "";
  return path;
}

bool is_char_device(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode);
}

int gif_frames(const std::string& path) {
  int err = 0;
  GifFileType* gif = DGifOpenFileName(path.c_str(), &err);
  if (!gif) return -1;
  const int n = DGifSlurp(gif) == GIF_OK ? gif->ImageCount : -1;
  DGifCloseFile(gif, &err);
  return n;
}

TEST(OutputFiles, AnUnfinishedGifLeavesTheFileAsItWas) {
  meadow::test::TempDir tmp;
  const std::string path = tmp.file("keep.gif");
  write(path, "precious");
  { GifWriter gif(path); }  // no frame: e.g. the trace file could not be opened
  EXPECT_EQ(read(path), "precious");
  try {
    GifWriter gif(path);
    gif.add(noise(8, 8, 1), 10);
    throw std::runtime_error("the episode failed");  // unwinding: not finished
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(read(path), "precious");
  {
    GifWriter gif(path);
    EXPECT_THROW(gif.close(), meadow::Error);  // no frames
  }
  EXPECT_EQ(read(path), "precious");
  EXPECT_EQ(entries(fs::path(path).parent_path()), 1u);  // no temporary file left

  {
    GifWriter gif(path);
    gif.add(noise(8, 8, 1), 10);
    gif.close();
  }
  EXPECT_EQ(gif_frames(path), 1);
  EXPECT_EQ(entries(fs::path(path).parent_path()), 1u);
}

TEST(OutputFiles, AGifOnADeviceThatFailsKeepsTheDevice) {
  meadow::test::TempDir tmp;
  const std::string dev = full_device(tmp);
  if (dev.empty()) GTEST_SKIP() << "making a device node needs root";
  {
    GifWriter gif(dev);
    // A frame of noise is far larger than stdio's buffer: the first frame's write fails.
    EXPECT_THROW(gif.add(noise(200, 200, 2), 10), meadow::Error);
  }
  EXPECT_TRUE(is_char_device(dev));
  {
    GifWriter gif(dev);
    gif.add(noise(4, 4, 3), 10);  // small enough to stay in the buffer until close
    EXPECT_THROW(gif.close(), meadow::Error);
  }
  EXPECT_TRUE(is_char_device(dev));
  EXPECT_THROW(meadow::write_png(dev, noise(200, 200, 4)), meadow::Error);
  EXPECT_TRUE(is_char_device(dev));
}

TEST(OutputFiles, FoldersAndMissingFoldersAreClearErrors) {
  meadow::test::TempDir tmp;
  fs::create_directories(tmp.file("dir"));
  write(tmp.file("dir/inside.txt"), "x");
  for (const std::string& bad : {tmp.file("dir"), tmp.file("missing/x.gif")}) {
    try {
      GifWriter gif(bad);
      FAIL() << bad;
    } catch (const meadow::Error& e) {
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
    EXPECT_THROW(meadow::write_png(bad, noise(4, 4, 5)), meadow::Error);
  }
  EXPECT_EQ(read(tmp.file("dir/inside.txt")), "x");
  EXPECT_EQ(entries(tmp.file("dir")), 1u);
}

TEST(OutputFiles, AFailedPngLeavesTheFileAsItWas) {
  meadow::test::TempDir tmp;
  const std::string path = tmp.file("keep.png");
  write(path, "precious");
  EXPECT_THROW(meadow::write_png(path, Frame{4, 4, std::vector<uint8_t>(10)}), meadow::Error);
  EXPECT_EQ(read(path), "precious");
  meadow::write_png(path, noise(4, 4, 6));
  EXPECT_EQ(read(path).substr(1, 3), "PNG");
  EXPECT_EQ(entries(fs::path(path).parent_path()), 1u);
}

// Two processes write different GIFs to one path over and over: whenever the file is read it
// is one writer's complete GIF, byte for byte.
TEST(OutputFiles, RacingGifWritersLeaveOneCompleteFile) {
  meadow::test::TempDir tmp;
  const std::string path = tmp.file("race.gif");
  auto write_gif = [&](unsigned seed, int frames) {
    GifWriter gif(path);
    for (int i = 0; i < frames; ++i) gif.add(noise(64, 48, seed + unsigned(i)), 20);
    gif.close();
  };
  write_gif(100, 6);
  const std::string a = read(path);
  write_gif(200, 9);
  const std::string b = read(path);
  ASSERT_NE(a, b);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    try {
      for (int i = 0; i < 30; ++i) write_gif(200, 9);
    } catch (...) {
      ::_exit(1);
    }
    ::_exit(0);
  }
  for (int i = 0; i < 30; ++i) {
    write_gif(100, 6);
    const std::string now = read(path);
    EXPECT_TRUE(now == a || now == b) << "a torn GIF of " << now.size() << " bytes";
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  const std::string last = read(path);
  EXPECT_TRUE(last == a || last == b);
  EXPECT_GT(gif_frames(path), 0);
  EXPECT_EQ(entries(fs::path(path).parent_path()), 1u);
}

}  // namespace
