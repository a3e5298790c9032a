// AtomicFile: a temporary file beside the target, renamed onto it only when complete.
#include "util/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <random>

#include "meadow/error.hpp"

namespace meadow::util {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& path, const std::string& why) {
  throw Error("cannot write " + path + ": " + why);
}

// The path a symbolic link chain ends at (the link itself stays; its file is replaced).
// Relative links resolve against the link's folder. A loop ends after 40 links, as open() does.
fs::path follow_links(fs::path p, const std::string& shown) {
  for (int i = 0; i < 40; ++i) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p;
    std::error_code ec;
    const fs::path next = fs::read_symlink(p, ec);
    if (ec) fail(shown, ec.message());
    p = next.is_absolute() ? next : p.parent_path() / next;
  }
  fail(shown, std::strerror(ELOOP));
}

uint64_t random_tag() {
  try {
    std::random_device rd;
    return (uint64_t(rd()) << 32) ^ rd();
  } catch (const std::exception&) {  // no entropy source: the clock still differs per call
    return uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
  }
}

// "NAME.tmp.<pid>.<16 hex digits>", NAME cut so that the whole stays within NAME_MAX (255).
std::string temp_name(const std::string& name) {
  char tail[64];
  std::snprintf(tail, sizeof tail, ".tmp.%ld.%016llx", static_cast<long>(::getpid()),
                static_cast<unsigned long long>(random_tag()));
  return name.substr(0, 255 - std::strlen(tail)) + tail;
}

}  // namespace

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  if (path_.empty()) fail("''", "empty path");
  const fs::path target = follow_links(path_, path_);
  struct stat st {};
  const bool exists = ::stat(target.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) fail(path_, "it is a folder");
  if (exists && !S_ISREG(st.st_mode)) {
    // A device or pipe: written in place, never replaced or removed.
    fd_ = ::open(target.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd_ < 0) fail(path_, std::strerror(errno));
    return;
  }
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  const std::string name = target.filename().string();
  if (name.empty() || name == "." || name == "..") fail(path_, "it is a folder");
  for (int attempt = 0; attempt < 16; ++attempt) {
    const std::string temp = (dir / temp_name(name)).string();
    // 0666 & ~umask, as for any file the user writes; a replaced file keeps its mode below.
    fd_ = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0666);
    if (fd_ >= 0) {
      temp_ = temp;
      break;
    }
    if (errno == ENOENT) {
      // Said only when it is so: /proc/self exists, yet creating a file there gives ENOENT.
      const int err = errno;
      struct stat ds {};
      if (::stat(dir.c_str(), &ds) != 0) {
        if (errno == ENOENT) fail(path_, "folder " + dir.string() + " does not exist");
        fail(path_, "folder " + dir.string() + ": " + std::strerror(errno));
      }
      fail(path_,
           "files cannot be created in folder " + dir.string() + " (" + std::strerror(err) + ")");
    }
    if (errno != EEXIST) fail(path_, std::strerror(errno));
  }
  if (fd_ < 0) fail(path_, "no unused temporary name beside it");
  if (exists) (void)::fchmod(fd_, st.st_mode & 07777);  // best effort, as cp does
  target_ = target.string();
}

AtomicFile::~AtomicFile() {
  close_owned();
  if (!committed_ && !temp_.empty()) ::unlink(temp_.c_str());
}

std::FILE* AtomicFile::stream() {
  if (!stream_ && fd_ >= 0 && !released_) {
    stream_ = ::fdopen(fd_, "wb");
    if (!stream_) fail(path_, std::strerror(errno));
  }
  return stream_;
}

int AtomicFile::release_fd() {
  released_ = true;
  return fd_;
}

void AtomicFile::close_owned() {
  int rc = 0;
  if (stream_) {
    rc = std::fclose(stream_);  // flushes, and closes fd_
    stream_ = nullptr;
    fd_ = -1;
  } else if (fd_ >= 0 && !released_) {
    rc = ::close(fd_);
    fd_ = -1;
  }
  if (rc != 0 && close_errno_ == 0) close_errno_ = errno ? errno : EIO;
}

void AtomicFile::commit() {
  if (committed_) return;
  close_owned();
  const int err = close_errno_;
  if (err != 0) {
    if (!temp_.empty()) ::unlink(temp_.c_str());
    committed_ = true;  // finished: nothing left for the destructor to remove
    fail(path_, std::strerror(err));
  }
  if (!temp_.empty() && std::rename(temp_.c_str(), target_.c_str()) != 0) {
    const int e = errno;
    ::unlink(temp_.c_str());
    committed_ = true;
    fail(path_, std::strerror(e));
  }
  committed_ = true;
}

}  // namespace meadow::util
