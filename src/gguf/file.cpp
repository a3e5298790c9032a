// Opening a GGUF file: map it read-only, then parse header, metadata and tensor table with
// every size checked against the file size before it is used.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>

#include "gguf/parse.hpp"
#include "meadow/error.hpp"
#include "meadow/runtime/gguf.hpp"
#include "util/read_file.hpp"

namespace meadow::gguf {
namespace {

constexpr uint32_t kMagic = 0x46554747;  // "GGUF" read as a little-endian uint32
constexpr uint32_t kVersion = 3;
// Smallest wire size of one metadata entry (key length, value type, 1-byte value) and of one
// tensor info (name length, n_dims, one dim, type, offset).
constexpr uint64_t kMinEntryBytes = 8 + 4 + 1;
constexpr uint64_t kMinTensorInfoBytes = 8 + 4 + 8 + 4 + 8;

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

void check_header(Cursor& c, uint32_t& version) {
  c.set_context("header");
  const uint8_t* m = c.take(4, "magic");
  uint32_t magic;
  std::memcpy(&magic, m, 4);
  if (magic != kMagic) {
    char hex[64];
    std::snprintf(hex, sizeof hex, "%02x %02x %02x %02x", m[0], m[1], m[2], m[3]);
    c.fail(std::string("not a GGUF file: magic bytes are ") + hex +
           ", expected 47 47 55 46 ('GGUF')");
  }
  version = c.read<uint32_t>("version");
  if (version == __builtin_bswap32(kVersion)) {
    c.fail("big-endian GGUF files are not supported");
  }
  if (version != kVersion) {
    c.fail("unsupported GGUF version " + std::to_string(version) +
           " (only version 3 is supported)");
  }
}

void check_count(const Cursor& c, uint64_t count, uint64_t min_bytes, const char* what) {
  if (count > c.remaining() / min_bytes) {
    c.fail("truncated: header declares " + std::to_string(count) + " " + what +
           ", needing at least " + std::to_string(min_bytes) + " bytes each from byte " +
           std::to_string(c.pos()) + ", but the file has " + std::to_string(c.size()) + " bytes");
  }
}

}  // namespace

File File::open(const std::string& path) {
  // O_NONBLOCK: a FIFO (a --lora or model path naming one) would block the open until a
  // writer came; it is refused by the type check below instead. mmap ignores the flag.
  Fd fd{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)};
  if (fd.fd < 0) throw Error(path + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd.fd, &st) != 0) throw Error(path + ": cannot stat: " + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    throw Error(path + ": it is " + util::file_kind(st.st_mode) + ", not a regular file");

  File f;
  f.path_ = path;
  f.size_ = static_cast<uint64_t>(st.st_size);
  if (f.size_ > 0) {
    void* p = ::mmap(nullptr, f.size_, PROT_READ, MAP_PRIVATE, fd.fd, 0);
    if (p == MAP_FAILED) throw Error(path + ": cannot map: " + std::strerror(errno));
    f.map_ = p;  // from here on f's destructor unmaps, also when parsing throws
  }
  const auto* base = static_cast<const uint8_t*>(f.map_);
  Cursor c(base, f.size_, f.path_);

  check_header(c, f.version_);
  const auto n_tensors = c.read<uint64_t>("tensor count");
  const auto n_kv = c.read<uint64_t>("metadata count");
  check_count(c, n_kv, kMinEntryBytes, "metadata entries");
  f.kv_ = parse_metadata(c, n_kv);
  f.alignment_ = parse_alignment(f.kv_, c);
  check_count(c, n_tensors, kMinTensorInfoBytes, "tensors");
  f.tensors_ = parse_tensor_table(c, n_tensors);
  place_tensors(f.tensors_, base, f.size_, c.pos(), f.alignment_, c);
  return f;
}

void File::release(const void* data, uint64_t bytes) const {
  const auto page = uint64_t(::sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<uintptr_t>(data), end = begin + bytes;
  const auto base = reinterpret_cast<uintptr_t>(map_);
  if (!map_ || begin < base || end > base + size_) throw Error(path_ + ": release outside the map");
  const uintptr_t first = (begin + page - 1) / page * page, last = end / page * page;
  // Advice only: on failure the pages merely stay resident.
  if (first < last) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

File::File(File&& o) noexcept {
  *this = std::move(o);
}

File& File::operator=(File&& o) noexcept {
  if (this != &o) {
    std::swap(path_, o.path_);
    std::swap(version_, o.version_);
    std::swap(alignment_, o.alignment_);
    std::swap(size_, o.size_);
    std::swap(map_, o.map_);
    std::swap(kv_, o.kv_);
    std::swap(tensors_, o.tensors_);
  }
  return *this;
}

File::~File() {
  if (map_) ::munmap(map_, size_);
}

}  // namespace meadow::gguf
