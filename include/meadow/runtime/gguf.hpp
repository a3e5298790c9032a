// GGUF v3 reader: the file is memory-mapped, every offset and size is checked against the
// file size, and tensor data is read in place. Layout facts follow the GGUF specification.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace meadow::gguf {

enum class ValueType : uint32_t {
  U8 = 0,
  I8 = 1,
  U16 = 2,
  I16 = 3,
  U32 = 4,
  I32 = 5,
  F32 = 6,
  BOOL = 7,
  STRING = 8,
  ARRAY = 9,
  U64 = 10,
  I64 = 11,
  F64 = 12,
};

// ggml type ids as stored in the tensor table.
enum class TensorType : uint32_t {
  F32 = 0,
  F16 = 1,
  Q4_0 = 2,
  Q4_1 = 3,
  Q5_0 = 6,
  Q5_1 = 7,
  Q8_0 = 8,
  Q4_K = 12,
  Q5_K = 13,
  Q6_K = 14,
  Q8_K = 15,
  BF16 = 30,
};

struct Value;

// An array value. Scalar and string items read from a file stay in its mapping (a tokenizer's
// 150k strings would otherwise be copied at several times their size) and are decoded when
// asked, so those views are valid while the File lives; nested arrays, and arrays built in
// memory, hold their items.
struct Array {
  ValueType type = ValueType::U8;  // element type (ARRAY for nested arrays)
  std::vector<Value> items;        // held items (empty for a mapped array)

  // Mapped items (set by the reader, checked against the file when read): `count` scalars of
  // the element type's width from `mapped`, or for strings each one's length field at
  // mapped + string_offsets[i].
  const uint8_t* mapped = nullptr;
  uint64_t count = 0;
  std::vector<uint64_t> string_offsets;

  size_t size() const;
  bool empty() const { return size() == 0; }
  // Item i as a value (a copy; throws meadow::Error when i is out of range).
  Value at(size_t i) const;
  // Item i of a string array, without a copy (into the mapping or the held item).
  std::string_view string_at(size_t i) const;
};

// One metadata value. Integers keep their signedness; floats widen to double.
struct Value {
  ValueType type = ValueType::U8;
  std::variant<uint64_t, int64_t, double, bool, std::string, std::shared_ptr<Array>> data;

  // Checked accessors: throw meadow::Error if the value does not fit the asked type.
  uint64_t as_u64() const;
  int64_t as_i64() const;
  double as_f64() const;
  bool as_bool() const;
  const std::string& as_string() const;
  const Array& as_array() const;
};

struct TensorInfo {
  std::string name;
  std::vector<uint64_t> dims;  // ggml order: dims[0] is the contiguous (row) length
  TensorType type = TensorType::F32;
  uint64_t offset = 0;            // relative to the data section
  uint64_t nbytes = 0;            // bytes of data
  const uint8_t* data = nullptr;  // into the mapping

  uint64_t n_elements() const;
  uint64_t rows() const;  // product of dims[1..]
  uint64_t cols() const { return dims.empty() ? 1 : dims[0]; }
};

struct KeyValue {
  std::string key;
  Value value;
};

// A mapped GGUF file. Move-only; unmaps on destruction.
class File {
 public:
  // Throws meadow::Error "PATH: problem" for a missing, truncated, corrupt, unsupported-version
  // or unsupported-type file.
  static File open(const std::string& path);

  File(File&&) noexcept;
  File& operator=(File&&) noexcept;
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  ~File();

  const std::string& path() const { return path_; }
  uint32_t version() const { return version_; }
  uint64_t alignment() const { return alignment_; }
  uint64_t file_size() const { return size_; }

  const std::vector<KeyValue>& metadata() const { return kv_; }
  const Value* find(std::string_view key) const;  // nullptr if absent
  // Throw meadow::Error naming the key if absent or of the wrong type.
  const Value& at(std::string_view key) const;
  std::string get_string(std::string_view key) const;
  uint64_t get_u64(std::string_view key) const;
  double get_f64(std::string_view key) const;
  // Defaults when absent; still throw if present with the wrong type.
  std::string get_string(std::string_view key, std::string_view fallback) const;
  uint64_t get_u64(std::string_view key, uint64_t fallback) const;
  double get_f64(std::string_view key, double fallback) const;
  bool get_bool(std::string_view key, bool fallback) const;

  const std::vector<TensorInfo>& tensors() const { return tensors_; }
  const TensorInfo* find_tensor(std::string_view name) const;  // nullptr if absent
  const TensorInfo& tensor(std::string_view name) const;       // throws if absent

  // Drops the whole pages of [data, data + bytes) (a range of the mapping) from this process's
  // memory, for data a copy now serves; read again, they come back from the file.
  void release(const void* data, uint64_t bytes) const;

 private:
  File() = default;
  std::string path_;
  uint32_t version_ = 0;
  uint64_t alignment_ = 32;
  uint64_t size_ = 0;
  void* map_ = nullptr;
  std::vector<KeyValue> kv_;
  std::vector<TensorInfo> tensors_;
};

// Block geometry of a tensor type: elements per block and bytes per block.
int64_t block_elements(TensorType t);
int64_t block_bytes(TensorType t);
const char* type_name(TensorType t);
bool is_supported(uint32_t raw_type);
// Bytes needed for n elements (n must be a multiple of block_elements); throws on overflow.
uint64_t row_bytes(TensorType t, uint64_t n);

// Decodes n elements (a multiple of the type's block size) exactly as the format defines.
void dequantize(TensorType t, const void* src, float* dst, int64_t n);

}  // namespace meadow::gguf
