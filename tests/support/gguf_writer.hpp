// A small GGUF v3 writer for tests and benches (test support: the product never writes GGUF).
//
//   #include "gguf_writer.hpp"
//   using namespace meadow::gguf;
//   Writer w;                                            // default alignment 32
//   w.add("general.architecture", make_string("dream"));
//   w.add("dream.block_count", make_u32(2));
//   w.add("tokenizer.ggml.tokens", make_strings({"a", "b"}));
//   w.add("tokenizer.ggml.token_type", make_i32s({1, 1}));
//   w.add("nested", make_array(ValueType::ARRAY, {make_u8s({1, 2}), make_u8s({})}));
//   w.add("general.alignment", make_u32(64));            // optional; data is then 64-aligned
//   w.add_tensor("tok.weight", TensorType::F16, {8, 4}, bytes.data(), bytes.size());
//   w.add_tensor_f32("out.weight", TensorType::Q8_0, {32, 4}, floats.data());  // quantizes
//   w.write("/tmp/x.gguf");                              // or: std::vector<uint8_t> b = w.bytes();
//
// Values: make_u8 .. make_f64, make_bool, make_string, make_array(element type, items) and
// the typed array shortcuts below. dims are in ggml order (dims[0] = row length). Tensors are
// laid out in the order added, each at the next aligned offset. Everything is validated as it
// is added (duplicate keys or names, integer ranges, array element types, dims, byte counts)
// and problems throw meadow::Error, so a test cannot write a file it did not mean to.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "meadow/runtime/gguf.hpp"

namespace meadow::gguf {

Value make_u8(uint8_t v);
Value make_i8(int8_t v);
Value make_u16(uint16_t v);
Value make_i16(int16_t v);
Value make_u32(uint32_t v);
Value make_i32(int32_t v);
Value make_u64(uint64_t v);
Value make_i64(int64_t v);
Value make_f32(float v);
Value make_f64(double v);
Value make_bool(bool v);
Value make_string(std::string v);
// An array whose items all have type `element` (ValueType::ARRAY for nested arrays).
Value make_array(ValueType element, std::vector<Value> items);
Value make_u8s(const std::vector<uint8_t>& v);
Value make_i32s(const std::vector<int32_t>& v);
Value make_u32s(const std::vector<uint32_t>& v);
Value make_f32s(const std::vector<float>& v);
Value make_strings(const std::vector<std::string>& v);

class Writer {
 public:
  // Appends a metadata entry; throws on a duplicate key or an ill-formed value.
  // general.alignment (any unsigned integer type, power of two) sets the data alignment.
  void add(std::string key, Value value);
  // Appends a tensor from raw bytes in its GGUF encoding; nbytes must match type and dims.
  void add_tensor(std::string name, TensorType type, std::vector<uint64_t> dims, const void* data,
                  size_t nbytes);
  // Appends a tensor given as float32 values (n_elements of dims), quantized to `type`.
  void add_tensor_f32(std::string name, TensorType type, std::vector<uint64_t> dims,
                      const float* values);

  // The whole file.
  std::vector<uint8_t> bytes() const;
  // Writes bytes() to a temporary file renamed onto path (util/atomic_file.hpp); throws
  // meadow::Error naming the path on failure, leaving what the path held.
  void write(const std::string& path) const;

 private:
  struct Tensor {
    std::string name;
    TensorType type;
    std::vector<uint64_t> dims;
    std::vector<uint8_t> data;
  };
  uint64_t alignment() const;
  std::vector<KeyValue> kv_;
  std::vector<Tensor> tensors_;
};

}  // namespace meadow::gguf
