// BPE merging on token ids: a piece starts as one id per byte and adjacent pairs are merged,
// lowest merge rank first (leftmost on ties), until no listed pair remains.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

namespace meadow::tokenizer {

struct Merge {
  int32_t rank;
  int32_t result;  // id of left+right
};

// Pair -> merge, stored by left id (a 50k-merge table in under 1 MB): each left id's entries
// sorted by right id, found by binary search.
class MergeTable {
 public:
  void add(int32_t left, int32_t right, Merge m);  // first (lowest-rank) entry for a pair wins
  void finish(int32_t n_tokens);                   // once, after the last add(); ids < n_tokens
  const Merge* find(int32_t left, int32_t right) const {
    if (left < 0 || size_t(left) + 1 >= first_.size()) return nullptr;
    const Entry* b = entries_.data() + first_[size_t(left)];
    const Entry* e = entries_.data() + first_[size_t(left) + 1];
    const Entry* it =
        std::lower_bound(b, e, right, [](const Entry& x, int32_t r) { return x.right < r; });
    return it != e && it->right == right ? &it->merge : nullptr;
  }
  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    int32_t right;
    Merge merge;
  };
  struct Pending {
    int32_t left, right;
    Merge merge;
  };
  std::vector<Pending> pending_;  // add() order until finish()
  std::vector<uint32_t> first_;   // left id l's entries are [first_[l], first_[l + 1])
  std::vector<Entry> entries_;
};

// Merges `ids` in place (the symbols of one piece) and returns the merged ids.
void bpe_merge(const MergeTable& merges, std::vector<int32_t>& ids);

}  // namespace meadow::tokenizer
