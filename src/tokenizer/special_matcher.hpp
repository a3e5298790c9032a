// Finds added tokens written verbatim in text: the earliest position where one matches, and
// there the longest one (the same rule as the reference's trie splitter).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace meadow::tokenizer {

class SpecialMatcher {
 public:
  void add(std::string text, int32_t id);  // empty texts are ignored
  void finish();                           // call once after the last add()
  bool empty() const { return count_ == 0; }

  struct Hit {
    size_t pos = std::string_view::npos;  // npos: no match
    size_t len = 0;
    int32_t id = -1;
  };
  Hit find(std::string_view text, size_t from) const;

 private:
  struct Entry {
    std::string text;
    int32_t id;
  };
  std::array<std::vector<Entry>, 256> by_first_;  // longest first within each bucket
  size_t count_ = 0;
};

}  // namespace meadow::tokenizer
