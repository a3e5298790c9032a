// BPE merging on token ids: a piece starts as one id per byte and adjacent pairs are merged,
// lowest merge rank first (leftmost on ties), until no listed pair remains.
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

namespace meadow::tokenizer {

struct Merge {
  int32_t rank;
  int32_t result;  // id of left+right
};

class MergeTable {
 public:
  void add(int32_t left, int32_t right, Merge m);  // first (lowest-rank) entry for a pair wins
  const Merge* find(int32_t left, int32_t right) const {
    auto it = map_.find(key(left, right));
    return it == map_.end() ? nullptr : &it->second;
  }
  size_t size() const { return map_.size(); }

 private:
  static uint64_t key(int32_t l, int32_t r) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(l)) << 32) | static_cast<uint32_t>(r);
  }
  std::unordered_map<uint64_t, Merge> map_;
};

// Merges `ids` in place (the symbols of one piece) and returns the merged ids.
void bpe_merge(const MergeTable& merges, std::vector<int32_t>& ids);

}  // namespace meadow::tokenizer
