// Cross-check against an independent implementation: tools/make_fixture.py writes random
// models with its own NumPy writer and quantizers, tools/gguf_py reads and dequantizes them
// with its own code, and our reader must agree on every metadata value, the tensor table and
// every dequantized element, bit for bit (both follow ggml's arithmetic order).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "meadow/runtime/gguf.hpp"

namespace meadow::gguf {
namespace {

namespace fs = std::filesystem;

// Compares one of our metadata values with the JSON the Python reader produced.
void expect_same(const Value& v, const nlohmann::json& j, const std::string& where) {
  switch (v.type) {
    case ValueType::STRING:
      EXPECT_EQ(v.as_string(), j.get<std::string>()) << where;
      break;
    case ValueType::BOOL:
      EXPECT_EQ(v.as_bool(), j.get<bool>()) << where;
      break;
    case ValueType::F32:
    case ValueType::F64:
      EXPECT_EQ(v.as_f64(), j.get<double>()) << where;
      break;
    case ValueType::ARRAY: {
      const Array& a = v.as_array();
      ASSERT_TRUE(j.is_array()) << where;
      ASSERT_EQ(a.size(), j.size()) << where;
      for (size_t i = 0; i < a.size(); ++i) {
        expect_same(a.at(i), j[i], where + "[" + std::to_string(i) + "]");
      }
      break;
    }
    case ValueType::I8:
    case ValueType::I16:
    case ValueType::I32:
    case ValueType::I64:
      EXPECT_EQ(v.as_i64(), j.get<int64_t>()) << where;
      break;
    default:
      EXPECT_EQ(v.as_u64(), j.get<uint64_t>()) << where;
  }
}

TEST(GgufPythonReference, SameMetadataTablesAndValuesAsNumPy) {
  const fs::path dir =
      fs::temp_directory_path() / ("meadow_gguf_pyref_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::vector<std::string> types = {"F32",  "F16",  "BF16", "Q8_0",  "Q4_0",
                                          "Q4_1", "Q4_K", "Q6_K", "Q4_K_M"};
  std::string cmd = std::string(MEADOW_PYTHON) + " " + MEADOW_SOURCE_DIR +
                    "/tests/gguf/python_reference.py " + dir.string();
  for (const auto& t : types) cmd += " " + t;
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;

  for (const auto& t : types) {
    SCOPED_TRACE(t);
    const File f = File::open((dir / (t + ".gguf")).string());
    std::ifstream js(dir / (t + ".json"));
    const nlohmann::json ref = nlohmann::json::parse(js);

    ASSERT_EQ(f.metadata().size(), ref["meta"].size());
    for (const auto& e : f.metadata()) {
      ASSERT_TRUE(ref["meta"].contains(e.key)) << e.key;
      expect_same(e.value, ref["meta"][e.key], e.key);
    }
    EXPECT_GT(f.at("tokenizer.ggml.tokens").as_array().size(), 0u);

    ASSERT_EQ(f.tensors().size(), ref["tensors"].size());
    size_t quantized = 0;
    for (const auto& info : f.tensors()) {
      const auto& r = ref["tensors"][info.name];
      EXPECT_EQ(info.dims, r["dims"].get<std::vector<uint64_t>>()) << info.name;
      EXPECT_EQ(type_name(info.type), r["type"].get<std::string>()) << info.name;
      quantized += block_elements(info.type) > 1;

      std::vector<float> ours(info.n_elements());
      dequantize(info.type, info.data, ours.data(), int64_t(ours.size()));
      std::vector<float> theirs(info.n_elements());
      std::ifstream in(dir / t / (info.name + ".f32"), std::ios::binary);
      in.read(reinterpret_cast<char*>(theirs.data()), std::streamsize(theirs.size() * 4));
      ASSERT_TRUE(in) << info.name;
      ASSERT_EQ(std::memcmp(ours.data(), theirs.data(), ours.size() * 4), 0)
          << info.name << " (" << type_name(info.type) << ") differs from NumPy";
    }
    if (t.rfind("Q", 0) == 0) {
      EXPECT_GT(quantized, 5u);
    }
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace meadow::gguf
