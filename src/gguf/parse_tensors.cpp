// Tensor table of a GGUF file and the placement of tensor data in the data section.
#include <algorithm>
#include <numeric>
#include <string>

#include "gguf/parse.hpp"
#include "util/printable.hpp"

namespace meadow::gguf {
namespace {

TensorInfo read_tensor_info(Cursor& c, uint64_t index) {
  c.set_context("tensor " + std::to_string(index));
  TensorInfo t;
  t.name = c.read_string("name");
  c.set_context("tensor " + util::quoted(t.name));
  const auto n_dims = c.read<uint32_t>("n_dims");
  if (n_dims < 1 || n_dims > kMaxDims) {
    c.fail_here("n_dims " + std::to_string(n_dims) + " is outside 1.." + std::to_string(kMaxDims));
  }
  t.dims.resize(n_dims);  // at most kMaxDims
  uint64_t n = 1;
  for (uint32_t d = 0; d < n_dims; ++d) {
    t.dims[d] = c.read<uint64_t>("dimension");
    if (t.dims[d] == 0) c.fail_here("dimension " + std::to_string(d) + " is zero");
    if (__builtin_mul_overflow(n, t.dims[d], &n) || n > uint64_t(INT64_MAX)) {
      c.fail_here("element count overflows (dimension " + std::to_string(d) + " is " +
                  std::to_string(t.dims[d]) + ")");
    }
  }
  const auto raw_type = c.read<uint32_t>("type");
  if (!is_supported(raw_type)) {
    c.fail_here(
        "unsupported tensor type " + std::to_string(raw_type) + " (" +
        type_name(static_cast<TensorType>(raw_type)) +
        "); supported: F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q4_K, Q5_K, Q6_K, Q8_K");
  }
  t.type = static_cast<TensorType>(raw_type);
  t.offset = c.read<uint64_t>("offset");
  const auto be = static_cast<uint64_t>(block_elements(t.type));
  if (t.dims[0] % be != 0) {
    c.fail_here("row length " + std::to_string(t.dims[0]) + " is not a multiple of the " +
                type_name(t.type) + " block size " + std::to_string(be));
  }
  // n is a multiple of be and fits int64; bytes per element are at most 4 (F32).
  if (__builtin_mul_overflow(n / be, static_cast<uint64_t>(block_bytes(t.type)), &t.nbytes)) {
    c.fail_here("byte size overflows");
  }
  return t;
}

}  // namespace

std::vector<TensorInfo> parse_tensor_table(Cursor& c, uint64_t n_tensors) {
  std::vector<TensorInfo> tensors;
  tensors.reserve(n_tensors);  // the caller checked n_tensors against the remaining bytes
  for (uint64_t i = 0; i < n_tensors; ++i) tensors.push_back(read_tensor_info(c, i));
  c.set_context("");
  reject_duplicates(c, tensors, &TensorInfo::name, "tensor name");
  return tensors;
}

void place_tensors(std::vector<TensorInfo>& tensors, const uint8_t* base, uint64_t file_size,
                   uint64_t table_end, uint64_t alignment, const Cursor& c) {
  if (tensors.empty()) return;  // a metadata-only file needs no data section
  uint64_t data_start = 0;
  if (__builtin_add_overflow(table_end, alignment - 1, &data_start)) {
    c.fail("data section offset overflows with alignment " + std::to_string(alignment));
  }
  data_start -= data_start % alignment;
  if (data_start > file_size) {
    c.fail("truncated: data section starts at byte " + std::to_string(data_start) +
           " but the file has " + std::to_string(file_size) + " bytes");
  }
  const uint64_t data_size = file_size - data_start;
  for (auto& t : tensors) {
    if (t.offset % alignment != 0) {
      c.fail("tensor " + util::quoted(t.name) + ": offset " + std::to_string(t.offset) +
             " is not a multiple of the alignment " + std::to_string(alignment));
    }
    if (t.offset > data_size || t.nbytes > data_size - t.offset) {
      // Report the end in file coordinates; it may exceed 64 bits, so say it in two parts.
      c.fail("truncated: tensor " + util::quoted(t.name) + " data (" + std::to_string(t.nbytes) +
             " bytes at data offset " + std::to_string(t.offset) + ") ends past the file end: " +
             "data section starts at byte " + std::to_string(data_start) + " and the file has " +
             std::to_string(file_size) + " bytes");
    }
    t.data = base + data_start + t.offset;
  }
  std::vector<size_t> order(tensors.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return tensors[a].offset < tensors[b].offset; });
  for (size_t i = 1; i < order.size(); ++i) {
    const auto& prev = tensors[order[i - 1]];
    const auto& cur = tensors[order[i]];
    if (prev.offset + prev.nbytes > cur.offset) {  // no overflow: both lie inside the file
      c.fail("tensors " + util::quoted(prev.name) + " and " + util::quoted(cur.name) +
             " overlap (bytes " + std::to_string(prev.offset) + ".." +
             std::to_string(prev.offset + prev.nbytes) + " and " + std::to_string(cur.offset) +
             ".. of the data section)");
    }
  }
}

}  // namespace meadow::gguf
