// Tensor table: dims, types, sizes, offsets and data pointers with the default and a custom
// alignment.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

#include "gguf_quantize.hpp"
#include "gguf_writer.hpp"
#include "meadow/error.hpp"
#include "meadow/runtime/gguf.hpp"
#include "test_util.hpp"

namespace meadow::gguf {
namespace {

using test::TempFile;

std::vector<float> ramp(size_t n, float scale) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * float(int(i % 17) - 8);
  return v;
}

void check_layout(const File& f, uint64_t alignment) {
  EXPECT_EQ(f.alignment(), alignment);
  const auto* base = f.tensors().front().data - f.tensors().front().offset;
  EXPECT_EQ(reinterpret_cast<uintptr_t>(base) % alignment, 0u);  // mapping is page-aligned
  for (const auto& t : f.tensors()) {
    EXPECT_EQ(t.offset % alignment, 0u) << t.name;
    EXPECT_EQ(t.data, base + t.offset) << t.name;
    EXPECT_LE(uint64_t(t.data - static_cast<const uint8_t*>(base)) + t.nbytes, f.file_size());
  }
}

TEST(GgufTensorTable, DefaultAlignmentAndEveryType) {
  const std::vector<float> a = ramp(256 * 2, 0.25f);
  Writer w;
  w.add("general.architecture", make_string("test"));
  w.add_tensor_f32("f32", TensorType::F32, {3}, a.data());
  w.add_tensor_f32("f16", TensorType::F16, {5, 2}, a.data());
  w.add_tensor_f32("bf16", TensorType::BF16, {7}, a.data());
  w.add_tensor_f32("q8_0", TensorType::Q8_0, {32, 3}, a.data());
  w.add_tensor_f32("q4_0", TensorType::Q4_0, {64, 1, 1}, a.data());
  w.add_tensor_f32("q4_k", TensorType::Q4_K, {256, 2}, a.data());
  w.add_tensor_f32("q6_k", TensorType::Q6_K, {256, 1, 1, 2}, a.data());
  TempFile tmp;
  w.write(tmp.path);
  const File f = File::open(tmp.path);
  ASSERT_EQ(f.tensors().size(), 7u);
  check_layout(f, 32);

  const TensorInfo& f16 = f.tensor("f16");
  EXPECT_EQ(f16.type, TensorType::F16);
  EXPECT_EQ(f16.dims, (std::vector<uint64_t>{5, 2}));
  EXPECT_EQ(f16.cols(), 5u);
  EXPECT_EQ(f16.rows(), 2u);
  EXPECT_EQ(f16.n_elements(), 10u);
  EXPECT_EQ(f16.nbytes, 20u);
  EXPECT_EQ(f.tensor("f32").nbytes, 12u);
  EXPECT_EQ(f.tensor("bf16").nbytes, 14u);
  EXPECT_EQ(f.tensor("q8_0").nbytes, 3u * 34);
  EXPECT_EQ(f.tensor("q4_0").nbytes, 2u * 18);
  EXPECT_EQ(f.tensor("q4_k").nbytes, 2u * 144);
  EXPECT_EQ(f.tensor("q6_k").nbytes, 2u * 210);
  EXPECT_EQ(f.tensor("q6_k").rows(), 2u);
  EXPECT_EQ(f.find_tensor("nope"), nullptr);
  EXPECT_THROW(f.tensor("nope"), Error);

  // The bytes in the file are the bytes that were written.
  std::vector<float> back(3);
  std::memcpy(back.data(), f.tensor("f32").data, 12);
  EXPECT_EQ(back, std::vector<float>(a.begin(), a.begin() + 3));
  const auto q = quantize(TensorType::Q4_K, a.data(), 512);
  EXPECT_EQ(std::memcmp(f.tensor("q4_k").data, q.data(), q.size()), 0);
}

TEST(GgufTensorTable, CustomAlignmentFromMetadata) {
  const std::vector<float> a = ramp(64, 1.0f);
  for (uint32_t alignment : {1u, 8u, 64u, 4096u}) {
    Writer w;
    w.add("general.alignment", make_u32(alignment));
    w.add_tensor_f32("a", TensorType::F32, {3}, a.data());
    w.add_tensor_f32("b", TensorType::F16, {5}, a.data());
    w.add_tensor_f32("c", TensorType::Q8_0, {32}, a.data());
    TempFile tmp(std::to_string(alignment));
    w.write(tmp.path);
    const File f = File::open(tmp.path);
    check_layout(f, alignment);
    EXPECT_EQ(f.tensor("b").offset, (12 + alignment - 1) / alignment * alignment);
    EXPECT_EQ(f.file_size() % alignment, 0u);
  }
}

TEST(GgufTensorTable, MoveKeepsTheMappingValid) {
  const std::vector<float> a = ramp(8, 1.0f);
  Writer w;
  w.add_tensor_f32("a", TensorType::F32, {8}, a.data());
  TempFile tmp;
  w.write(tmp.path);
  File f = File::open(tmp.path);
  const uint8_t* p = f.tensor("a").data;
  File g = std::move(f);
  EXPECT_EQ(g.tensor("a").data, p);
  float x;
  std::memcpy(&x, g.tensor("a").data + 4, 4);
  EXPECT_EQ(x, a[1]);
  File h = File::open(tmp.path);
  h = std::move(g);  // the old mapping of h is released, g's is kept
  EXPECT_EQ(h.tensor("a").data, p);
}

// Releasing a tensor's pages (a packed copy serves it) only drops them from memory: read again,
// the bytes are the file's. A range outside the mapping is an error, not a stray madvise.
TEST(GgufTensorTable, ReleasedPagesReadBackTheSame) {
  const std::vector<float> a = ramp(4096, 0.5f);  // 16 KiB: whole pages inside
  Writer w;
  w.add_tensor_f32("a", TensorType::F32, {4096}, a.data());
  TempFile tmp;
  w.write(tmp.path);
  const File f = File::open(tmp.path);
  const TensorInfo& t = f.tensor("a");
  f.release(t.data, t.nbytes);
  std::vector<float> back(a.size());
  std::memcpy(back.data(), t.data, t.nbytes);
  EXPECT_EQ(back, a);
  EXPECT_THROW(f.release(t.data, f.file_size()), meadow::Error);
  EXPECT_THROW(f.release(a.data(), 16), meadow::Error);
}

}  // namespace
}  // namespace meadow::gguf
