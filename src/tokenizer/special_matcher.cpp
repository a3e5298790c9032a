#include "tokenizer/special_matcher.hpp"

#include <algorithm>

namespace meadow::tokenizer {

void SpecialMatcher::add(std::string text, int32_t id) {
  if (text.empty()) return;
  by_first_[static_cast<unsigned char>(text[0])].push_back({std::move(text), id});
  ++count_;
}

void SpecialMatcher::finish() {
  for (auto& bucket : by_first_) {
    std::stable_sort(bucket.begin(), bucket.end(),
                     [](const Entry& a, const Entry& b) { return a.text.size() > b.text.size(); });
  }
}

SpecialMatcher::Hit SpecialMatcher::find(std::string_view text, size_t from) const {
  for (size_t i = from; i < text.size(); ++i) {
    const auto& bucket = by_first_[static_cast<unsigned char>(text[i])];
    for (const Entry& e : bucket) {
      if (text.compare(i, e.text.size(), e.text) == 0) return {i, e.text.size(), e.id};
    }
  }
  return {};
}

}  // namespace meadow::tokenizer
