// Checked accessors of metadata values: integers convert only when the value fits.
#include <cstring>
#include <string>

#include "gguf/value_type.hpp"
#include "meadow/error.hpp"
#include "meadow/runtime/gguf.hpp"

namespace meadow::gguf {

const char* value_type_name(ValueType t) {
  static constexpr const char* kNames[] = {"U8",   "I8",     "U16",   "I16", "U32", "I32", "F32",
                                           "BOOL", "STRING", "ARRAY", "U64", "I64", "F64"};
  const auto i = static_cast<uint32_t>(t);
  return i < std::size(kNames) ? kNames[i] : "unknown";
}

namespace {

void check_index(size_t size, size_t i) {
  if (i >= size) {
    throw Error("array item " + std::to_string(i) + " is out of range (size " +
                std::to_string(size) + ")");
  }
}

[[noreturn]] void wrong_type(const Value& v, const char* wanted) {
  throw Error(std::string("value of type ") + value_type_name(v.type) + " is not " + wanted);
}

}  // namespace

Value decode_scalar(ValueType t, const uint8_t* p) {
  auto load = [p](auto v) {
    std::memcpy(&v, p, sizeof v);  // GGUF v3 files are little-endian
    return v;
  };
  Value v;
  v.type = t;
  switch (t) {
    case ValueType::U8:
      v.data = uint64_t{load(uint8_t{})};
      break;
    case ValueType::I8:
      v.data = int64_t{load(int8_t{})};
      break;
    case ValueType::U16:
      v.data = uint64_t{load(uint16_t{})};
      break;
    case ValueType::I16:
      v.data = int64_t{load(int16_t{})};
      break;
    case ValueType::U32:
      v.data = uint64_t{load(uint32_t{})};
      break;
    case ValueType::I32:
      v.data = int64_t{load(int32_t{})};
      break;
    case ValueType::U64:
      v.data = uint64_t{load(uint64_t{})};
      break;
    case ValueType::I64:
      v.data = int64_t{load(int64_t{})};
      break;
    case ValueType::F32:
      v.data = double{load(float{})};
      break;
    case ValueType::F64:
      v.data = double{load(double{})};
      break;
    case ValueType::BOOL:
      if (*p > 1) throw Error("invalid bool byte " + std::to_string(*p) + " (must be 0 or 1)");
      v.data = *p == 1;
      break;
    case ValueType::STRING:
    case ValueType::ARRAY:
      throw Error(std::string(value_type_name(t)) + " is not a fixed-size scalar");
  }
  return v;
}

size_t Array::size() const {
  return mapped ? size_t(count) : items.size();
}

Value Array::at(size_t i) const {
  check_index(size(), i);
  if (!mapped) return items[i];
  Value v;
  if (type == ValueType::STRING) {
    v.type = type;
    v.data = std::string(string_at(i));
    return v;
  }
  return decode_scalar(type, mapped + i * scalar_bytes(type));
}

std::string_view Array::string_at(size_t i) const {
  if (type != ValueType::STRING) {
    throw Error(std::string("array of ") + value_type_name(type) + " holds no strings");
  }
  check_index(size(), i);
  if (!mapped) return items[i].as_string();
  const uint8_t* p = mapped + string_offsets[i];
  uint64_t len;
  std::memcpy(&len, p, sizeof len);  // checked against the file when it was read
  return {reinterpret_cast<const char*>(p + sizeof len), size_t(len)};
}

uint64_t Value::as_u64() const {
  if (const auto* u = std::get_if<uint64_t>(&data)) return *u;
  if (const auto* i = std::get_if<int64_t>(&data)) {
    if (*i >= 0) return static_cast<uint64_t>(*i);
    throw Error("value " + std::to_string(*i) + " is negative, expected an unsigned integer");
  }
  wrong_type(*this, "an integer");
}

int64_t Value::as_i64() const {
  if (const auto* i = std::get_if<int64_t>(&data)) return *i;
  if (const auto* u = std::get_if<uint64_t>(&data)) {
    if (*u <= static_cast<uint64_t>(INT64_MAX)) return static_cast<int64_t>(*u);
    throw Error("value " + std::to_string(*u) + " does not fit a signed 64-bit integer");
  }
  wrong_type(*this, "an integer");
}

double Value::as_f64() const {
  if (const auto* d = std::get_if<double>(&data)) return *d;
  if (const auto* u = std::get_if<uint64_t>(&data)) return static_cast<double>(*u);
  if (const auto* i = std::get_if<int64_t>(&data)) return static_cast<double>(*i);
  wrong_type(*this, "a number");
}

bool Value::as_bool() const {
  if (const auto* b = std::get_if<bool>(&data)) return *b;
  wrong_type(*this, "a bool");
}

const std::string& Value::as_string() const {
  if (const auto* s = std::get_if<std::string>(&data)) return *s;
  wrong_type(*this, "a string");
}

const Array& Value::as_array() const {
  if (const auto* a = std::get_if<std::shared_ptr<Array>>(&data); a && *a) return **a;
  wrong_type(*this, "an array");
}

}  // namespace meadow::gguf
