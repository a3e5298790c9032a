// Names and wire sizes of metadata value types (private to the gguf layer).
#pragma once

#include <cstdint>

#include "meadow/runtime/gguf.hpp"

namespace meadow::gguf {

const char* value_type_name(ValueType t);

// Bytes of a fixed-size scalar on the wire; 0 for STRING and ARRAY (variable size).
inline uint64_t scalar_bytes(ValueType t) {
  switch (t) {
    case ValueType::U8:
    case ValueType::I8:
    case ValueType::BOOL:
      return 1;
    case ValueType::U16:
    case ValueType::I16:
      return 2;
    case ValueType::U32:
    case ValueType::I32:
    case ValueType::F32:
      return 4;
    case ValueType::U64:
    case ValueType::I64:
    case ValueType::F64:
      return 8;
    case ValueType::STRING:
    case ValueType::ARRAY:
      return 0;
  }
  return 0;
}

// Decodes one fixed-size scalar of type t from its wire bytes (a BOOL byte above 1 throws
// meadow::Error; the reader checks it first to name the place in the file).
Value decode_scalar(ValueType t, const uint8_t* p);

inline bool is_known_value_type(uint32_t raw) {
  return raw <= uint32_t(ValueType::F64);
}

}  // namespace meadow::gguf
