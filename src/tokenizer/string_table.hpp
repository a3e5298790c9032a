// A vocabulary's strings in one buffer, with a text -> id index: a 150k-token vocabulary
// costs its bytes plus 4 bytes per string and per index slot, instead of a string object and a
// hash node (and often a heap block) per token.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace meadow::tokenizer {

class StringTable {
 public:
  void reserve(size_t strings, size_t bytes);
  // Appends s as string size(); throws meadow::Error past 4 GiB of text or INT32_MAX strings.
  void add(std::string_view s);
  std::string_view operator[](int32_t i) const {
    const uint32_t begin = i == 0 ? 0 : ends_[size_t(i) - 1];
    return {chars_.data() + begin, ends_[size_t(i)] - begin};
  }
  int32_t size() const { return int32_t(ends_.size()); }
  // Frees what reserve() over-asked for.
  void shrink_to_fit();

  // Builds the index find() uses (call after the last add); on equal texts the lowest id wins.
  void index();
  std::optional<int32_t> find(std::string_view s) const;

 private:
  std::string chars_;
  std::vector<uint32_t> ends_;  // string i is chars_[ends_[i-1], ends_[i])
  std::vector<int32_t> slots_;  // open addressing, linear probing; -1 empty; 2^k >= 2 x size
};

}  // namespace meadow::tokenizer
