// Malformed files: every problem is one meadow::Error line "PATH: problem", never a crash.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <random>
#include <string>

#include "gguf_writer.hpp"
#include "meadow/error.hpp"
#include "meadow/runtime/gguf.hpp"
#include "test_util.hpp"

namespace meadow::gguf {
namespace {

using test::Raw;
using test::TempFile;

// Opens bytes as a file; returns the error message ("" if it opened).
std::string open_error(const std::vector<uint8_t>& bytes) {
  TempFile tmp("bad");
  tmp.write(bytes);
  try {
    File::open(tmp.path);
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind(tmp.path + ": ", 0), 0u) << "message must start with the path: " << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << "one line: " << msg;
    return msg.substr(tmp.path.size() + 2);
  }
  return "";
}

#define EXPECT_OPEN_ERROR(bytes, text)                                    \
  do {                                                                    \
    const std::string m_ = open_error(bytes);                             \
    EXPECT_NE(m_.find(text), std::string::npos) << "got: '" << m_ << "'"; \
  } while (0)

// A valid file with one F32 tensor of 4 elements (16 bytes) at data offset 0.
Raw one_tensor(std::vector<uint64_t> dims = {4}, uint32_t type = 0, uint64_t offset = 0) {
  Raw r;
  r.header(1, 0).tensor("w", dims, type, offset).pad(32).zeros(64);
  return r;
}

TEST(GgufBadFile, ValidBaselineOpens) {
  EXPECT_EQ(open_error(one_tensor().b), "");
}

TEST(GgufBadFile, MissingFileAndDirectory) {
  EXPECT_THROW(File::open("/nonexistent/model.gguf"), Error);
  try {
    File::open("/nonexistent/model.gguf");
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("/nonexistent/model.gguf: cannot open", 0), 0u);
  }
  EXPECT_THROW(File::open("/tmp"), Error);
}

TEST(GgufBadFile, EmptyFile) {
  EXPECT_OPEN_ERROR({}, "truncated");
}

TEST(GgufBadFile, CorruptMagic) {
  Raw r = one_tensor();
  r.b[0] = 'X';
  EXPECT_OPEN_ERROR(r.b, "not a GGUF file");
}

TEST(GgufBadFile, UnsupportedVersionIsNamed) {
  Raw v2;
  v2.header(0, 0, 2);
  EXPECT_OPEN_ERROR(v2.b, "unsupported GGUF version 2");
  Raw v4;
  v4.header(0, 0, 4);
  EXPECT_OPEN_ERROR(v4.b, "unsupported GGUF version 4");
  Raw be;
  be.header(0, 0, 0x03000000);
  EXPECT_OPEN_ERROR(be.b, "big-endian");
}

TEST(GgufBadFile, UnsupportedTensorTypeIsNamed) {
  EXPECT_OPEN_ERROR(one_tensor({256}, 10).b, "unsupported tensor type 10 (Q2_K)");
  EXPECT_OPEN_ERROR(one_tensor({32}, 9999).b, "unsupported tensor type 9999");
}

TEST(GgufBadFile, BadDims) {
  EXPECT_OPEN_ERROR(one_tensor({4, 0}).b, "dimension 1 is zero");
  EXPECT_OPEN_ERROR(one_tensor({1, 1, 1, 1, 1}).b, "n_dims 5");
  EXPECT_OPEN_ERROR(one_tensor({}).b, "n_dims 0");
  // 2^32 * 2^32 overflows 64 bits; 2^62 * 4 fits the count but not int64 / bytes.
  EXPECT_OPEN_ERROR(one_tensor({1ull << 32, 1ull << 32}).b, "overflows");
  EXPECT_OPEN_ERROR(one_tensor({1ull << 62, 4}).b, "overflows");
  EXPECT_OPEN_ERROR(one_tensor({1ull << 61}).b, "truncated");  // fits, but not in the file
  EXPECT_OPEN_ERROR(one_tensor({33}, 8).b, "not a multiple of the Q8_0 block size 32");
}

TEST(GgufBadFile, OffsetsBeyondTheFile) {
  EXPECT_OPEN_ERROR(one_tensor({4}, 0, 1u << 20).b, "tensor 'w' data");
  EXPECT_OPEN_ERROR(one_tensor({4}, 0, ~uint64_t{0} - 31).b, "truncated");  // offset + size wraps
  EXPECT_OPEN_ERROR(one_tensor({16}, 0, 32).b, "truncated");                // 64 bytes at 32 of 64
  EXPECT_EQ(open_error(one_tensor({16}, 0, 0).b), "");                      // exactly fits
}

TEST(GgufBadFile, MisalignedOffset) {
  EXPECT_OPEN_ERROR(one_tensor({4}, 0, 4).b, "not a multiple of the alignment 32");
}

TEST(GgufBadFile, OverlappingTensors) {
  Raw r;
  r.header(2, 0).tensor("a", {16}, 0, 0).tensor("b", {4}, 0, 32).pad(32).zeros(128);
  EXPECT_OPEN_ERROR(r.b, "tensors 'a' and 'b' overlap");
  Raw ok;
  ok.header(2, 0).tensor("a", {8}, 0, 0).tensor("b", {4}, 0, 32).pad(32).zeros(128);
  EXPECT_EQ(open_error(ok.b), "");
}

TEST(GgufBadFile, DuplicateNames) {
  Raw keys;
  keys.header(0, 2).str("k").u32(4).u32(1).str("k").u32(4).u32(2);
  EXPECT_OPEN_ERROR(keys.b, "duplicate metadata key 'k'");
  Raw tensors;
  tensors.header(2, 0).tensor("t", {4}, 0, 0).tensor("t", {4}, 0, 32).pad(32).zeros(64);
  EXPECT_OPEN_ERROR(tensors.b, "duplicate tensor name 't'");
}

TEST(GgufBadFile, AbsurdLengthsAndCounts) {
  Raw str;
  str.header(0, 1).str("k").u32(8).u64(~uint64_t{0} - 2);  // string of 2^64-3 bytes
  EXPECT_OPEN_ERROR(str.b, "truncated");
  Raw key;
  key.header(0, 1).u64(1ull << 40);
  EXPECT_OPEN_ERROR(key.b, "truncated");
  Raw arr;
  arr.header(0, 1).str("k").u32(9).u32(8).u64(1ull << 60);  // 2^60 strings
  EXPECT_OPEN_ERROR(arr.b, "array of 1152921504606846976 STRING items");
  Raw kv;
  kv.header(0, ~uint64_t{0});
  EXPECT_OPEN_ERROR(kv.b, "metadata entries");
  Raw tn;
  tn.header(1ull << 62, 0);
  EXPECT_OPEN_ERROR(tn.b, "tensors");
}

TEST(GgufBadFile, BadValues) {
  Raw type;
  type.header(0, 1).str("k").u32(13).u32(0);
  EXPECT_OPEN_ERROR(type.b, "metadata key 'k': unknown value type 13");
  Raw elem;
  elem.header(0, 1).str("k").u32(9).u32(77).u64(0);
  EXPECT_OPEN_ERROR(elem.b, "unknown value type 77");
  Raw boolean;
  boolean.header(0, 1).str("k").u32(7).put<uint8_t>(2);
  EXPECT_OPEN_ERROR(boolean.b, "invalid bool");
  Raw deep;  // arrays nested 100 deep, each holding one array
  deep.header(0, 1).str("k").u32(9);
  for (int i = 0; i < 100; ++i) deep.u32(9).u64(1);
  deep.u32(0).u64(0);
  EXPECT_OPEN_ERROR(deep.b, "nested deeper");
}

TEST(GgufBadFile, BadAlignmentKey) {
  Raw zero;
  zero.header(0, 1).str("general.alignment").u32(4).u32(0);
  EXPECT_OPEN_ERROR(zero.b, "general.alignment 0 is not a power of two");
  Raw odd;
  odd.header(0, 1).str("general.alignment").u32(4).u32(24);
  EXPECT_OPEN_ERROR(odd.b, "general.alignment 24 is not a power of two");
  Raw str;
  str.header(0, 1).str("general.alignment").u32(8).str("32");
  EXPECT_OPEN_ERROR(str.b, "general.alignment has type STRING");
}

// Cutting a valid file at every byte position must give a clean "truncated" error (the
// data section end included), never a crash or an out-of-bounds read (ASan checks that).
TEST(GgufBadFile, TruncationAtEveryByte) {
  Writer w;
  w.add("general.architecture", make_string("dream"));
  w.add("n", make_u32(7));
  w.add("f", make_f64(0.5));
  w.add("b", make_bool(true));
  w.add("tokens", make_strings({"a", "bc", ""}));
  w.add("nested", make_array(ValueType::ARRAY, {make_i32s({1, 2}), make_i32s({})}));
  const std::vector<float> x(64, 0.5f);
  w.add_tensor_f32("t0", TensorType::F32, {3}, x.data());
  w.add_tensor_f32("t1", TensorType::Q8_0, {32, 2}, x.data());
  std::vector<uint8_t> full = w.bytes();
  // Drop the padding after the last tensor so every cut lands inside something.
  const size_t end = full.size() - (32 - (2 * 34) % 32);
  ASSERT_EQ(open_error(std::vector<uint8_t>(full.begin(), full.begin() + end)), "");

  TempFile tmp("cut");
  tmp.write(full);
  for (size_t n = end; n-- > 0;) {
    ASSERT_EQ(::truncate(tmp.path.c_str(), off_t(n)), 0);  // cheaper than rewriting the file
    try {
      File::open(tmp.path);
      ADD_FAILURE() << "a file cut at byte " << n << " opened";
    } catch (const Error& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("truncated"), std::string::npos) << "cut at " << n << ": " << msg;
      EXPECT_EQ(msg.rfind(tmp.path + ": ", 0), 0u) << msg;
    }
  }
}

// Random byte corruption of a valid file: opening either works (then every tensor decodes) or
// throws meadow::Error; nothing else may happen (ASan/UBSan builds check memory safety).
TEST(GgufBadFile, RandomByteCorruption) {
  Writer w;
  w.add("general.alignment", make_u32(16));
  w.add("tokens", make_strings({"a", "bc"}));
  w.add("nested", make_array(ValueType::ARRAY, {make_u8s({1, 2}), make_f32s({0.5f})}));
  const std::vector<float> x(256, 0.25f);
  w.add_tensor_f32("a", TensorType::Q4_K, {256}, x.data());
  w.add_tensor_f32("b", TensorType::F16, {3, 2}, x.data());
  w.add_tensor_f32("c", TensorType::Q6_K, {256}, x.data());
  const std::vector<uint8_t> full = w.bytes();
  const size_t table_end = full.size() - 144 - 210 - 16;  // mutate header, metadata and table
  TempFile tmp("mut");
  tmp.write(full);
  const int fd = ::open(tmp.path.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  std::mt19937 rng(7);
  int opened = 0, rejected = 0;
  std::vector<float> out(256);
  for (int iter = 0; iter < 1500; ++iter) {
    const size_t n_bytes = 1 + iter % 3;
    size_t at[3];
    for (size_t k = 0; k < n_bytes; ++k) {
      at[k] = rng() % table_end;
      const uint8_t v = uint8_t(iter % 4 == 0 ? 0xff : rng());
      ASSERT_EQ(::pwrite(fd, &v, 1, off_t(at[k])), 1);
    }
    try {
      const File f = File::open(tmp.path);
      for (const auto& t : f.tensors()) {
        out.resize(t.n_elements());
        dequantize(t.type, t.data, out.data(), int64_t(t.n_elements()));
      }
      ++opened;
    } catch (const Error&) {
      ++rejected;
    }
    for (size_t k = 0; k < n_bytes; ++k) {  // restore
      ASSERT_EQ(::pwrite(fd, &full[at[k]], 1, off_t(at[k])), 1);
    }
  }
  ::close(fd);
  EXPECT_GT(rejected, 500);  // most corruptions of structure are caught
  EXPECT_GT(opened, 30);     // and the test did exercise files that still parse
}

}  // namespace
}  // namespace meadow::gguf
