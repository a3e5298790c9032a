// The parsing steps of File::open (private to the gguf layer).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "gguf/cursor.hpp"
#include "meadow/runtime/gguf.hpp"

namespace meadow::gguf {

// Reads n_kv key/value pairs; rejects unknown value types, invalid bools, arrays nested too
// deep or too long, and duplicate keys.
std::vector<KeyValue> parse_metadata(Cursor& c, uint64_t n_kv);

// The alignment of the data section: general.alignment if present (a power of two), else 32.
uint64_t parse_alignment(const std::vector<KeyValue>& kv, const Cursor& c);

// Reads n_tensors tensor infos (name, dims, type, offset), checking dims and types.
// Sizes are filled in; data pointers are not.
std::vector<TensorInfo> parse_tensor_table(Cursor& c, uint64_t n_tensors);

// Places the data section after the table and checks every tensor's offset (aligned), extent
// (inside the file) and that no two tensors overlap; sets TensorInfo::data.
void place_tensors(std::vector<TensorInfo>& tensors, const uint8_t* base, uint64_t file_size,
                   uint64_t table_end, uint64_t alignment, const Cursor& c);

// Fails through `c` with "duplicate WHAT 'NAME'" when two of `names` are equal.
void reject_duplicate_names(const Cursor& c, std::vector<const std::string*> names,
                            const std::string& what);

// The same over the `name` member of each of `items` (metadata keys, tensor names). Run after
// parsing, so the check needs no extra lifetime bookkeeping.
template <class T>
void reject_duplicates(const Cursor& c, const std::vector<T>& items, std::string T::*name,
                       const std::string& what) {
  std::vector<const std::string*> names;
  names.reserve(items.size());
  for (const T& x : items) names.push_back(&(x.*name));
  reject_duplicate_names(c, std::move(names), what);
}

// Limits that keep a hostile file from making us allocate or recurse without bound; far above
// anything real models use (the largest vocabularies have a few hundred thousand entries).
inline constexpr int kMaxArrayDepth = 64;
inline constexpr uint64_t kMaxArrayItems = uint64_t(1) << 24;
inline constexpr uint32_t kMaxDims = 4;

}  // namespace meadow::gguf
