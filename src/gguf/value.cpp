// Checked accessors of metadata values: integers convert only when the value fits.
#include <string>

#include "gguf/value_type.hpp"
#include "meadow/error.hpp"
#include "meadow/gguf.hpp"

namespace meadow::gguf {

const char* value_type_name(ValueType t) {
  static constexpr const char* kNames[] = {"U8",   "I8",     "U16",   "I16", "U32", "I32", "F32",
                                           "BOOL", "STRING", "ARRAY", "U64", "I64", "F64"};
  const auto i = static_cast<uint32_t>(t);
  return i < std::size(kNames) ? kNames[i] : "unknown";
}

namespace {

[[noreturn]] void wrong_type(const Value& v, const char* wanted) {
  throw Error(std::string("value of type ") + value_type_name(v.type) + " is not " + wanted);
}

}  // namespace

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
