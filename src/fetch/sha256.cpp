#include "fetch/sha256.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "meadow/error.hpp"
#include "meadow/runtime/fetch.hpp"

namespace meadow::fetch {
namespace detail {

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
  if (!ctx_) throw Error("sha256: OpenSSL could not allocate a digest context");
  reset();
}

void Sha256::reset() {
  if (EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) != 1)
    throw Error("sha256: OpenSSL could not start a digest");
}

void Sha256::update(const void* data, size_t n) {
  if (n && EVP_DigestUpdate(ctx_.get(), data, n) != 1) throw Error("sha256: digest update failed");
}

std::string Sha256::hex() {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_DigestFinal_ex(ctx_.get(), md, &len) != 1) throw Error("sha256: digest failed");
  static const char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * len);
  for (unsigned i = 0; i < len; ++i) {
    out += digits[md[i] >> 4];
    out += digits[md[i] & 15];
  }
  reset();
  return out;
}

void hash_prefix(const std::string& path, uint64_t n, Sha256& h) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(path + ": " + std::strerror(errno));
  std::vector<char> buf(1 << 20);
  uint64_t left = n;
  while (left > 0) {
    const ssize_t got = ::read(fd, buf.data(), size_t(std::min<uint64_t>(left, buf.size())));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      const std::string why = got < 0 ? std::strerror(errno) : "shorter than expected";
      ::close(fd);
      throw Error(path + ": read failed: " + why);
    }
    h.update(buf.data(), size_t(got));
    left -= uint64_t(got);
  }
  ::close(fd);
}

}  // namespace detail

std::string sha256_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw Error(path + ": " + std::strerror(errno));
  detail::Sha256 h;
  detail::hash_prefix(path, uint64_t(st.st_size), h);
  return h.hex();
}

}  // namespace meadow::fetch
