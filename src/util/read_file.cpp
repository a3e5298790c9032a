// Bounded, type-checked reading of user-named files (util/read_file.hpp).
#include "util/read_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "meadow/error.hpp"

namespace meadow::util {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& why) {
  throw Error("cannot read " + path + ": " + why);
}

struct Fd {  // closes on every way out
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

std::string cap_text(size_t bytes) {
  if (bytes >= (size_t(1) << 20) && bytes % (size_t(1) << 20) == 0)
    return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= (size_t(1) << 10) && bytes % (size_t(1) << 10) == 0)
    return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

}  // namespace

std::string file_kind(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a regular file";
}

int open_regular_file(const std::string& path, struct stat& st) {
  if (path.empty()) fail("''", "empty path");
  // O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever.
  Fd f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)};
  if (f.fd < 0) fail(path, std::strerror(errno));
  if (::fstat(f.fd, &st) != 0) fail(path, std::strerror(errno));
  if (!S_ISREG(st.st_mode)) fail(path, "it is " + file_kind(st.st_mode) + ", not a regular file");
  // A regular file reads the same either way; clear the flag for the callers' plain reads.
  const int flags = ::fcntl(f.fd, F_GETFL);
  if (flags >= 0) ::fcntl(f.fd, F_SETFL, flags & ~O_NONBLOCK);
  const int fd = f.fd;
  f.fd = -1;
  return fd;
}

std::string read_file(const std::string& path, size_t max_bytes) {
  struct stat st {};
  Fd f{open_regular_file(path, st)};
  const auto too_large = [&] { fail(path, "larger than " + cap_text(max_bytes)); };
  if (st.st_size > 0 && uint64_t(st.st_size) > max_bytes) too_large();
  std::string text;
  text.reserve(st.st_size > 0 ? size_t(st.st_size) : 0);
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(f.fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(path, std::strerror(errno));
    }
    if (n == 0) break;
    // A file that grew after fstat: still no more than the cap is kept.
    if (size_t(n) > max_bytes - text.size()) too_large();
    text.append(buf, size_t(n));
  }
  return text;
}

}  // namespace meadow::util
