#include "tokenizer/string_table.hpp"

#include <bit>
#include <functional>

#include "meadow/error.hpp"

namespace meadow::tokenizer {

void StringTable::reserve(size_t strings, size_t bytes) {
  ends_.reserve(strings);
  chars_.reserve(bytes);
}

void StringTable::add(std::string_view s) {
  if (chars_.size() + s.size() > UINT32_MAX || ends_.size() >= size_t(INT32_MAX))
    throw Error("tokenizer: vocabulary text too large");
  chars_.append(s);
  ends_.push_back(uint32_t(chars_.size()));
}

void StringTable::shrink_to_fit() {
  chars_.shrink_to_fit();
  ends_.shrink_to_fit();
}

void StringTable::index() {
  const size_t n = std::bit_ceil(std::max<size_t>(2 * ends_.size(), 2));
  slots_.assign(n, -1);
  const size_t mask = n - 1;
  for (int32_t id = 0; id < size(); ++id) {
    const std::string_view s = (*this)[id];
    size_t at = std::hash<std::string_view>{}(s)&mask;
    // The first of equal texts keeps the slot, as a map's try_emplace would.
    while (slots_[at] >= 0 && (*this)[slots_[at]] != s) at = (at + 1) & mask;
    if (slots_[at] < 0) slots_[at] = id;
  }
}

std::optional<int32_t> StringTable::find(std::string_view s) const {
  if (slots_.empty()) return std::nullopt;
  const size_t mask = slots_.size() - 1;
  for (size_t at = std::hash<std::string_view>{}(s)&mask; slots_[at] >= 0; at = (at + 1) & mask)
    if ((*this)[slots_[at]] == s) return slots_[at];
  return std::nullopt;
}

}  // namespace meadow::tokenizer
