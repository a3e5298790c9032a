// GGUF v3 writer for tests and benches: metadata of every type, tensors at aligned offsets.
#include "gguf_writer.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <utility>

#include "gguf/value_type.hpp"
#include "gguf_quantize.hpp"
#include "meadow/error.hpp"
#include "util/atomic_file.hpp"

namespace meadow::gguf {
namespace {

Value unsigned_value(ValueType t, uint64_t v) {
  Value x;
  x.type = t;
  x.data = v;
  return x;
}
Value signed_value(ValueType t, int64_t v) {
  Value x;
  x.type = t;
  x.data = v;
  return x;
}

template <typename T>
void check_range(const Value& v) {
  bool ok = false;
  if (const auto* u = std::get_if<uint64_t>(&v.data)) {
    ok = *u <= static_cast<uint64_t>(std::numeric_limits<T>::max());
  } else if (const auto* i = std::get_if<int64_t>(&v.data)) {
    ok = *i >= static_cast<int64_t>(std::numeric_limits<T>::min()) &&
         (*i < 0 ||
          static_cast<uint64_t>(*i) <= static_cast<uint64_t>(std::numeric_limits<T>::max()));
  }
  if (!ok) throw Error(std::string("gguf writer: value does not fit ") + value_type_name(v.type));
}

// Checks that the variant holds what the type tag says, recursively for arrays.
void validate(const Value& v) {
  switch (v.type) {
    case ValueType::U8:
      check_range<uint8_t>(v);
      return;
    case ValueType::I8:
      check_range<int8_t>(v);
      return;
    case ValueType::U16:
      check_range<uint16_t>(v);
      return;
    case ValueType::I16:
      check_range<int16_t>(v);
      return;
    case ValueType::U32:
      check_range<uint32_t>(v);
      return;
    case ValueType::I32:
      check_range<int32_t>(v);
      return;
    case ValueType::U64:
      check_range<uint64_t>(v);
      return;
    case ValueType::I64:
      check_range<int64_t>(v);
      return;
    case ValueType::F32:
    case ValueType::F64:
      if (!std::holds_alternative<double>(v.data)) break;
      return;
    case ValueType::BOOL:
      if (!std::holds_alternative<bool>(v.data)) break;
      return;
    case ValueType::STRING:
      if (!std::holds_alternative<std::string>(v.data)) break;
      return;
    case ValueType::ARRAY: {
      const auto* a = std::get_if<std::shared_ptr<Array>>(&v.data);
      if (!a || !*a) break;
      for (const Value& item : (*a)->items) {
        if (item.type != (*a)->type) {
          throw Error(std::string("gguf writer: array of ") + value_type_name((*a)->type) +
                      " holds an item of type " + value_type_name(item.type));
        }
        validate(item);
      }
      return;
    }
  }
  throw Error(std::string("gguf writer: value tagged ") + value_type_name(v.type) +
              " holds data of another type");
}

struct Out {
  std::vector<uint8_t> b;
  void raw(const void* p, size_t n) {
    if (n == 0) return;
    const size_t at = b.size();
    b.resize(at + n);  // resize + memcpy: GCC 12 warns falsely on insert() into an empty vector
    std::memcpy(b.data() + at, p, n);
  }
  template <typename T>
  void put(T v) {
    raw(&v, sizeof v);
  }
  void str(const std::string& s) {
    put<uint64_t>(s.size());
    raw(s.data(), s.size());
  }
  void pad_to(uint64_t alignment) {
    while (b.size() % alignment != 0) b.push_back(0);
  }
};

void put_value(Out& o, const Value& v) {
  switch (v.type) {
    case ValueType::U8:
      o.put(uint8_t(v.as_u64()));
      return;
    case ValueType::I8:
      o.put(int8_t(v.as_i64()));
      return;
    case ValueType::U16:
      o.put(uint16_t(v.as_u64()));
      return;
    case ValueType::I16:
      o.put(int16_t(v.as_i64()));
      return;
    case ValueType::U32:
      o.put(uint32_t(v.as_u64()));
      return;
    case ValueType::I32:
      o.put(int32_t(v.as_i64()));
      return;
    case ValueType::U64:
      o.put(uint64_t(v.as_u64()));
      return;
    case ValueType::I64:
      o.put(int64_t(v.as_i64()));
      return;
    case ValueType::F32:
      o.put(float(v.as_f64()));
      return;
    case ValueType::F64:
      o.put(double(v.as_f64()));
      return;
    case ValueType::BOOL:
      o.put(uint8_t(v.as_bool() ? 1 : 0));
      return;
    case ValueType::STRING:
      o.str(v.as_string());
      return;
    case ValueType::ARRAY: {
      const Array& a = v.as_array();
      o.put(uint32_t(a.type));
      o.put(uint64_t(a.size()));
      for (size_t i = 0; i < a.size(); ++i) put_value(o, a.at(i));
      return;
    }
  }
}

template <typename T, typename F>
Value array_of(ValueType t, const std::vector<T>& v, F make) {
  std::vector<Value> items;
  items.reserve(v.size());
  for (const T& x : v) items.push_back(make(x));
  return make_array(t, std::move(items));
}

}  // namespace

Value make_u8(uint8_t v) {
  return unsigned_value(ValueType::U8, v);
}
Value make_i8(int8_t v) {
  return signed_value(ValueType::I8, v);
}
Value make_u16(uint16_t v) {
  return unsigned_value(ValueType::U16, v);
}
Value make_i16(int16_t v) {
  return signed_value(ValueType::I16, v);
}
Value make_u32(uint32_t v) {
  return unsigned_value(ValueType::U32, v);
}
Value make_i32(int32_t v) {
  return signed_value(ValueType::I32, v);
}
Value make_u64(uint64_t v) {
  return unsigned_value(ValueType::U64, v);
}
Value make_i64(int64_t v) {
  return signed_value(ValueType::I64, v);
}
Value make_f32(float v) {
  Value x;
  x.type = ValueType::F32;
  x.data = double{v};
  return x;
}
Value make_f64(double v) {
  Value x;
  x.type = ValueType::F64;
  x.data = v;
  return x;
}
Value make_bool(bool v) {
  Value x;
  x.type = ValueType::BOOL;
  x.data = v;
  return x;
}
Value make_string(std::string v) {
  Value x;
  x.type = ValueType::STRING;
  x.data = std::move(v);
  return x;
}
Value make_array(ValueType element, std::vector<Value> items) {
  auto a = std::make_shared<Array>();
  a->type = element;
  a->items = std::move(items);
  Value x;
  x.type = ValueType::ARRAY;
  x.data = std::move(a);
  validate(x);
  return x;
}
Value make_u8s(const std::vector<uint8_t>& v) {
  return array_of(ValueType::U8, v, make_u8);
}
Value make_i32s(const std::vector<int32_t>& v) {
  return array_of(ValueType::I32, v, make_i32);
}
Value make_u32s(const std::vector<uint32_t>& v) {
  return array_of(ValueType::U32, v, make_u32);
}
Value make_f32s(const std::vector<float>& v) {
  return array_of(ValueType::F32, v, make_f32);
}
Value make_strings(const std::vector<std::string>& v) {
  return array_of(ValueType::STRING, v, make_string);
}

void Writer::add(std::string key, Value value) {
  for (const auto& e : kv_) {
    if (e.key == key) throw Error("gguf writer: duplicate metadata key '" + key + "'");
  }
  validate(value);
  if (key == "general.alignment") {
    const uint64_t a = value.as_u64();
    if (a == 0 || (a & (a - 1)) != 0) {
      throw Error("gguf writer: general.alignment " + std::to_string(a) + " is not a power of two");
    }
  }
  kv_.push_back({std::move(key), std::move(value)});
}

void Writer::add_tensor(std::string name, TensorType type, std::vector<uint64_t> dims,
                        const void* data, size_t nbytes) {
  for (const auto& t : tensors_) {
    if (t.name == name) throw Error("gguf writer: duplicate tensor name '" + name + "'");
  }
  if (!is_supported(uint32_t(type))) throw Error("gguf writer: unsupported tensor type");
  if (dims.empty() || dims.size() > 4)
    throw Error("gguf writer: tensor '" + name + "' needs 1..4 dims");
  uint64_t n = 1;
  for (uint64_t d : dims) {
    if (d == 0 || __builtin_mul_overflow(n, d, &n)) {
      throw Error("gguf writer: tensor '" + name + "' has a zero or overflowing dimension");
    }
  }
  if (dims[0] % uint64_t(block_elements(type)) != 0) {
    throw Error("gguf writer: tensor '" + name + "' row length is not a whole number of blocks");
  }
  const uint64_t want = row_bytes(type, dims[0]) * (n / dims[0]);
  if (want != nbytes) {
    throw Error("gguf writer: tensor '" + name + "' needs " + std::to_string(want) +
                " bytes, got " + std::to_string(nbytes));
  }
  const auto* p = static_cast<const uint8_t*>(data);
  tensors_.push_back({std::move(name), type, std::move(dims), std::vector<uint8_t>(p, p + nbytes)});
}

void Writer::add_tensor_f32(std::string name, TensorType type, std::vector<uint64_t> dims,
                            const float* values) {
  uint64_t n = 1;
  for (uint64_t d : dims) {
    if (__builtin_mul_overflow(n, d, &n)) throw Error("gguf writer: dims overflow");
  }
  const std::vector<uint8_t> q = quantize(type, values, static_cast<int64_t>(n));
  add_tensor(std::move(name), type, std::move(dims), q.data(), q.size());
}

uint64_t Writer::alignment() const {
  for (const auto& e : kv_) {
    if (e.key == "general.alignment") return e.value.as_u64();
  }
  return 32;
}

std::vector<uint8_t> Writer::bytes() const {
  const uint64_t align = alignment();
  Out o;
  o.put<uint32_t>(0x46554747);  // "GGUF"
  o.put<uint32_t>(3);
  o.put<uint64_t>(tensors_.size());
  o.put<uint64_t>(kv_.size());
  for (const auto& e : kv_) {
    o.str(e.key);
    o.put(uint32_t(e.value.type));
    put_value(o, e.value);
  }
  uint64_t offset = 0;
  for (const auto& t : tensors_) {
    o.str(t.name);
    o.put(uint32_t(t.dims.size()));
    for (uint64_t d : t.dims) o.put(d);
    o.put(uint32_t(t.type));
    o.put(offset);
    offset += t.data.size();
    offset += (align - offset % align) % align;
  }
  o.pad_to(align);
  for (const auto& t : tensors_) {
    o.raw(t.data.data(), t.data.size());
    o.pad_to(align);
  }
  return o.b;
}

void Writer::write(const std::string& path) const {
  const std::vector<uint8_t> b = bytes();
  // A temporary file renamed onto path when complete: a reader never maps half a model.
  util::AtomicFile f(path);
  if (std::fwrite(b.data(), 1, b.size(), f.stream()) != b.size())
    throw Error(path + ": cannot write: " + std::strerror(errno));
  f.commit();
}

}  // namespace meadow::gguf
