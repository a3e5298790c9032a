#include "tokenizer/bpe.hpp"

#include <algorithm>
#include <queue>

namespace meadow::tokenizer {

void MergeTable::add(int32_t left, int32_t right, Merge m) {
  pending_.push_back({left, right, m});
}

void MergeTable::finish(int32_t n_tokens) {
  // Stable: of equal pairs the first added stays first, and only it is kept.
  std::stable_sort(pending_.begin(), pending_.end(), [](const Pending& a, const Pending& b) {
    return a.left != b.left ? a.left < b.left : a.right < b.right;
  });
  first_.assign(size_t(std::max(n_tokens, 0)) + 1, 0);
  entries_.clear();
  entries_.reserve(pending_.size());
  for (size_t i = 0; i < pending_.size(); ++i) {
    const Pending& p = pending_[i];
    if (p.left < 0 || p.left >= n_tokens) continue;  // callers pass vocabulary ids
    if (i > 0 && pending_[i - 1].left == p.left && pending_[i - 1].right == p.right) continue;
    entries_.push_back({p.right, p.merge});
    ++first_[size_t(p.left) + 1];
  }
  for (size_t l = 1; l < first_.size(); ++l) first_[l] += first_[l - 1];
  std::vector<Pending>().swap(pending_);
}

namespace {

// Short pieces (most words) are merged by rescanning the pair ranks: no allocation beyond the
// rank array, and cheaper than a heap for a handful of symbols.
void merge_scan(const MergeTable& merges, std::vector<int32_t>& ids) {
  constexpr int32_t kNone = INT32_MAX;
  std::vector<int32_t> rank(ids.size(), kNone);  // rank[i]: pair (i, i+1)
  auto rank_at = [&](size_t i) {
    const Merge* m = merges.find(ids[i], ids[i + 1]);
    return m ? m->rank : kNone;
  };
  for (size_t i = 0; i + 1 < ids.size(); ++i) rank[i] = rank_at(i);
  while (ids.size() > 1) {
    size_t best = 0;
    for (size_t i = 1; i + 1 < ids.size(); ++i) {
      if (rank[i] < rank[best]) best = i;
    }
    if (rank[best] == kNone) break;
    ids[best] = merges.find(ids[best], ids[best + 1])->result;
    ids.erase(ids.begin() + static_cast<long>(best) + 1);
    rank.erase(rank.begin() + static_cast<long>(best) + 1);
    rank.back() = kNone;
    if (best + 1 < ids.size()) rank[best] = rank_at(best);
    if (best > 0) rank[best - 1] = rank_at(best - 1);
  }
}

// Long pieces (runs of symbols, long words) use a doubly linked list and a min-heap of
// candidate pairs keyed by (rank, position), so the cost stays O(n log n).
void merge_heap(const MergeTable& merges, std::vector<int32_t>& ids) {
  const int n = static_cast<int>(ids.size());
  std::vector<int> prev(n), next(n);
  for (int i = 0; i < n; ++i) prev[i] = i - 1, next[i] = i + 1 < n ? i + 1 : -1;
  struct Cand {
    int32_t rank;
    int left;
    int32_t left_id, right_id;  // the pair when pushed; stale entries no longer match
    bool operator>(const Cand& o) const { return rank != o.rank ? rank > o.rank : left > o.left; }
  };
  std::priority_queue<Cand, std::vector<Cand>, std::greater<>> heap;
  auto push = [&](int i) {
    if (i < 0 || next[i] < 0) return;
    if (const Merge* m = merges.find(ids[i], ids[next[i]])) {
      heap.push({m->rank, i, ids[i], ids[next[i]]});
    }
  };
  for (int i = 0; i + 1 < n; ++i) push(i);
  std::vector<char> alive(n, 1);
  while (!heap.empty()) {
    Cand c = heap.top();
    heap.pop();
    int r = next[c.left];
    if (!alive[c.left] || r < 0 || ids[c.left] != c.left_id || ids[r] != c.right_id) continue;
    ids[c.left] = merges.find(c.left_id, c.right_id)->result;
    alive[r] = 0;
    next[c.left] = next[r];
    if (next[r] >= 0) prev[next[r]] = c.left;
    push(prev[c.left]);
    push(c.left);
  }
  size_t out = 0;
  for (int i = 0; i >= 0 && i < n; i = next[i]) ids[out++] = ids[i];
  ids.resize(out);
}

}  // namespace

void bpe_merge(const MergeTable& merges, std::vector<int32_t>& ids) {
  if (ids.size() < 2) return;
  if (ids.size() <= 48) {
    merge_scan(merges, ids);
  } else {
    merge_heap(merges, ids);
  }
}

}  // namespace meadow::tokenizer
