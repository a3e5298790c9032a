// A bounds-checked little-endian reader over the mapped file. Every read checks the bytes it
// needs against what remains, so no read can run past the end of the mapping.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include "meadow/error.hpp"

namespace meadow::gguf {

class Cursor {
 public:
  Cursor(const uint8_t* base, uint64_t size, const std::string& path)
      : base_(base), size_(size), path_(path) {}

  uint64_t pos() const { return pos_; }
  uint64_t size() const { return size_; }
  uint64_t remaining() const { return size_ - pos_; }
  const std::string& path() const { return path_; }
  // What is being read, for error messages (e.g. "metadata key 3 'general.name'").
  void set_context(std::string context) { context_ = std::move(context); }
  const std::string& context() const { return context_; }
  // Fails with "PATH: CONTEXT: problem".
  [[noreturn]] void fail_here(const std::string& problem) const {
    fail(context_.empty() ? problem : context_ + ": " + problem);
  }

  [[noreturn]] void fail(const std::string& problem) const { throw Error(path_ + ": " + problem); }

  // Fails with "PATH: truncated: CONTEXT: problem".
  [[noreturn]] void fail_truncated(const std::string& problem) const {
    fail("truncated: " + (context_.empty() ? problem : context_ + ": " + problem));
  }

  // Fails with a "truncated" message unless n more bytes exist; returns them and advances.
  const uint8_t* take(uint64_t n, const char* what) {
    if (n > remaining()) {
      fail_truncated(std::string(what) + " at byte " + std::to_string(pos_) + " needs " +
                     std::to_string(n) + " bytes but the file has " + std::to_string(size_) +
                     " bytes");
    }
    const uint8_t* p = base_ + pos_;
    pos_ += n;
    return p;
  }

  template <typename T>
  T read(const char* what) {
    T v;
    std::memcpy(&v, take(sizeof(T), what), sizeof(T));  // GGUF v3 files are little-endian
    return v;
  }

  // Checks a string's length field and bytes and steps over them.
  void skip_string(const char* what) {
    const auto len = read<uint64_t>(what);
    take(len, what);
  }

  std::string read_string(const char* what) {
    const auto len = read<uint64_t>(what);
    const uint8_t* p = take(len, what);  // checked before any allocation
    return std::string(reinterpret_cast<const char*>(p), len);
  }

 private:
  const uint8_t* base_;
  uint64_t size_;
  uint64_t pos_ = 0;
  const std::string& path_;
  std::string context_;
};

}  // namespace meadow::gguf
