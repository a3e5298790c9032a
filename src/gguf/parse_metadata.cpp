// Metadata key/value section of a GGUF file: typed scalars, strings and (nested) arrays.
#include <algorithm>
#include <memory>
#include <string>

#include "gguf/parse.hpp"
#include "gguf/value_type.hpp"
#include "util/printable.hpp"

namespace meadow::gguf {
namespace {

ValueType read_type(Cursor& c, const char* what) {
  const auto raw = c.read<uint32_t>(what);
  if (!is_known_value_type(raw)) c.fail_here("unknown value type " + std::to_string(raw));
  return static_cast<ValueType>(raw);
}

// A bool is one byte, 0 or 1: the only scalar with invalid encodings.
void check_bool(uint8_t b, const Cursor& c) {
  if (b > 1) c.fail_here("invalid bool byte " + std::to_string(b) + " (must be 0 or 1)");
}

// Decodes one fixed-size scalar whose bytes were already bounds-checked, naming the place of a
// bad bool.
Value read_scalar(ValueType t, const uint8_t* p, const Cursor& c) {
  if (t == ValueType::BOOL) check_bool(*p, c);
  return decode_scalar(t, p);
}

Value read_value(Cursor& c, ValueType t, int depth);

Value read_array(Cursor& c, int depth) {
  if (depth >= kMaxArrayDepth) {
    c.fail_here("arrays nested deeper than " + std::to_string(kMaxArrayDepth) + " levels");
  }
  const ValueType elem = read_type(c, "array element type");
  const auto count = c.read<uint64_t>("array length");
  // Smallest wire size of one element: a string is at least its length field, an array at
  // least its type and length fields.
  const uint64_t min_bytes = elem == ValueType::STRING  ? 8
                             : elem == ValueType::ARRAY ? 12
                                                        : scalar_bytes(elem);
  if (count > c.remaining() / min_bytes) {
    c.fail_truncated("array of " + std::to_string(count) + " " + value_type_name(elem) +
                     " items needs at least " + std::to_string(min_bytes) + " bytes each at byte " +
                     std::to_string(c.pos()) + " but the file has " + std::to_string(c.size()) +
                     " bytes");
  }
  if (count > kMaxArrayItems) {
    c.fail_here("array of " + std::to_string(count) + " items exceeds the limit of " +
                std::to_string(kMaxArrayItems));
  }
  auto arr = std::make_shared<Array>();
  arr->type = elem;
  if (elem == ValueType::ARRAY) {
    arr->items.reserve(count);  // bounded by the bytes that remain, checked above
    for (uint64_t i = 0; i < count; ++i) arr->items.push_back(read_value(c, elem, depth + 1));
  } else if (elem == ValueType::STRING) {
    // Each string's length and bytes are checked now; the items stay in the mapping.
    arr->count = count;
    arr->string_offsets.reserve(count);
    const uint64_t start = c.pos();
    arr->mapped = c.take(0, "array items");
    for (uint64_t i = 0; i < count; ++i) {
      arr->string_offsets.push_back(c.pos() - start);
      c.skip_string("string");
    }
  } else {
    // Bad bools fail now, not when read.
    const uint8_t* p = c.take(count * min_bytes, "array items");
    if (elem == ValueType::BOOL)
      for (uint64_t i = 0; i < count; ++i) check_bool(p[i], c);
    arr->mapped = p;
    arr->count = count;
  }
  Value v;
  v.type = ValueType::ARRAY;
  v.data = std::move(arr);
  return v;
}

Value read_value(Cursor& c, ValueType t, int depth) {
  if (t == ValueType::STRING) {
    Value v;
    v.type = t;
    v.data = c.read_string("string");
    return v;
  }
  if (t == ValueType::ARRAY) return read_array(c, depth);
  const uint8_t* p = c.take(scalar_bytes(t), value_type_name(t));
  return read_scalar(t, p, c);
}

}  // namespace

std::vector<KeyValue> parse_metadata(Cursor& c, uint64_t n_kv) {
  std::vector<KeyValue> kv;
  kv.reserve(n_kv);  // the caller checked n_kv against the remaining bytes
  for (uint64_t i = 0; i < n_kv; ++i) {
    c.set_context("metadata entry " + std::to_string(i));
    KeyValue e;
    e.key = c.read_string("key");
    c.set_context("metadata key " + util::quoted(e.key));
    const ValueType t = read_type(c, "value type");
    e.value = read_value(c, t, 0);
    kv.push_back(std::move(e));
  }
  c.set_context("");
  reject_duplicates(c, kv, &KeyValue::key, "metadata key");
  return kv;
}

void reject_duplicate_names(const Cursor& c, std::vector<const std::string*> names,
                            const std::string& what) {
  std::sort(names.begin(), names.end(), [](auto* a, auto* b) { return *a < *b; });
  for (size_t i = 1; i < names.size(); ++i) {
    if (*names[i] == *names[i - 1]) c.fail("duplicate " + what + " " + util::quoted(*names[i]));
  }
}

uint64_t parse_alignment(const std::vector<KeyValue>& kv, const Cursor& c) {
  for (const auto& e : kv) {
    if (e.key != "general.alignment") continue;
    const auto* u = std::get_if<uint64_t>(&e.value.data);
    const auto* i = std::get_if<int64_t>(&e.value.data);
    uint64_t a = 0;
    if (u) {
      a = *u;
    } else if (i && *i > 0) {
      a = static_cast<uint64_t>(*i);
    } else if (!i) {
      c.fail(std::string("general.alignment has type ") + value_type_name(e.value.type) +
             ", expected an unsigned integer");
    }
    if (a == 0 || (a & (a - 1)) != 0) {
      c.fail("general.alignment " + (i ? std::to_string(*i) : std::to_string(a)) +
             " is not a power of two");
    }
    return a;
  }
  return 32;
}

}  // namespace meadow::gguf
