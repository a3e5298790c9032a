// Metadata round trip through the writer and the reader: every value type, nested and empty
// arrays, empty strings, and the checked accessors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "gguf_writer.hpp"
#include "meadow/error.hpp"
#include "meadow/runtime/gguf.hpp"
#include "test_util.hpp"

namespace meadow::gguf {
namespace {

using test::TempFile;

TEST(GgufMetadata, EveryScalarTypeRoundTrips) {
  Writer w;
  w.add("u8", make_u8(250));
  w.add("i8", make_i8(-120));
  w.add("u16", make_u16(65000));
  w.add("i16", make_i16(-32000));
  w.add("u32", make_u32(4000000000u));
  w.add("i32", make_i32(-2000000000));
  w.add("u64", make_u64(std::numeric_limits<uint64_t>::max()));
  w.add("i64", make_i64(std::numeric_limits<int64_t>::min()));
  w.add("f32", make_f32(1.5e-3f));
  w.add("f64", make_f64(-2.718281828459045));
  w.add("t", make_bool(true));
  w.add("f", make_bool(false));
  w.add("s", make_string("héllo\nworld"));
  w.add("empty", make_string(""));
  TempFile tmp;
  w.write(tmp.path);

  const File f = File::open(tmp.path);
  EXPECT_EQ(f.version(), 3u);
  ASSERT_EQ(f.metadata().size(), 14u);
  EXPECT_EQ(f.metadata()[0].key, "u8");  // order is kept
  EXPECT_EQ(f.at("u8").type, ValueType::U8);
  EXPECT_EQ(f.get_u64("u8"), 250u);
  EXPECT_EQ(f.at("i8").type, ValueType::I8);
  EXPECT_EQ(f.at("i8").as_i64(), -120);
  EXPECT_EQ(f.get_u64("u16"), 65000u);
  EXPECT_EQ(f.at("i16").as_i64(), -32000);
  EXPECT_EQ(f.get_u64("u32"), 4000000000u);
  EXPECT_EQ(f.at("i32").as_i64(), -2000000000);
  EXPECT_EQ(f.get_u64("u64"), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(f.at("i64").as_i64(), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(f.at("f32").type, ValueType::F32);
  EXPECT_EQ(f.get_f64("f32"), double(1.5e-3f));  // exact: widened from float
  EXPECT_EQ(f.get_f64("f64"), -2.718281828459045);
  EXPECT_TRUE(f.get_bool("t", false));
  EXPECT_FALSE(f.get_bool("f", true));
  EXPECT_EQ(f.get_string("s"), "héllo\nworld");
  EXPECT_EQ(f.get_string("empty"), "");
  EXPECT_EQ(f.find("missing"), nullptr);
  EXPECT_EQ(f.get_u64("missing", 7), 7u);
  EXPECT_EQ(f.get_string("missing", "dflt"), "dflt");
  EXPECT_EQ(f.get_f64("missing", 0.25), 0.25);
  EXPECT_TRUE(f.tensors().empty());
}

TEST(GgufMetadata, ArraysIncludingNestedAndEmptyRoundTrip) {
  Writer w;
  w.add("tokens", make_strings({"a", "", "ü", "<|mask|>"}));
  w.add("types", make_i32s({1, -2, 3}));
  w.add("scores", make_f32s({0.5f, -1.25f}));
  w.add("empty_u32", make_u32s({}));
  w.add("empty_strings", make_strings({}));
  w.add("nested",
        make_array(ValueType::ARRAY, {make_u8s({1, 2, 3}), make_u8s({}),
                                      make_array(ValueType::ARRAY, {make_strings({"deep"})})}));
  w.add("bools", make_array(ValueType::BOOL, {make_bool(true), make_bool(false)}));
  w.add("i64s", make_array(ValueType::I64, {make_i64(-5), make_i64(1LL << 40)}));
  w.add("f64s", make_array(ValueType::F64, {make_f64(1e300)}));
  TempFile tmp;
  w.write(tmp.path);
  const File f = File::open(tmp.path);

  const Array& tokens = f.at("tokens").as_array();
  EXPECT_EQ(tokens.type, ValueType::STRING);
  ASSERT_EQ(tokens.size(), 4u);
  EXPECT_EQ(tokens.at(1).as_string(), "");
  EXPECT_EQ(tokens.at(2).as_string(), "ü");
  EXPECT_EQ(tokens.at(3).as_string(), "<|mask|>");
  // Read in place: the views point into the mapping, not into copies.
  EXPECT_NE(tokens.mapped, nullptr);
  EXPECT_EQ(tokens.string_at(2), "ü");
  EXPECT_EQ(tokens.string_at(1), "");
  EXPECT_THROW(tokens.at(4), Error);
  EXPECT_THROW(tokens.string_at(4), Error);
  const Array& types = f.at("types").as_array();
  EXPECT_EQ(types.type, ValueType::I32);
  EXPECT_EQ(types.at(1).as_i64(), -2);
  EXPECT_THROW(types.string_at(0), Error);  // not an array of strings
  EXPECT_EQ(f.at("scores").as_array().at(1).as_f64(), -1.25);
  EXPECT_EQ(f.at("empty_u32").as_array().type, ValueType::U32);
  EXPECT_TRUE(f.at("empty_u32").as_array().empty());
  EXPECT_EQ(f.at("empty_strings").as_array().type, ValueType::STRING);
  EXPECT_TRUE(f.at("empty_strings").as_array().empty());

  const Array& nested = f.at("nested").as_array();
  EXPECT_EQ(nested.type, ValueType::ARRAY);
  ASSERT_EQ(nested.size(), 3u);
  EXPECT_EQ(nested.at(0).as_array().type, ValueType::U8);
  EXPECT_EQ(nested.at(0).as_array().at(2).as_u64(), 3u);
  EXPECT_TRUE(nested.at(1).as_array().empty());
  EXPECT_EQ(nested.at(2).as_array().at(0).as_array().at(0).as_string(), "deep");
  EXPECT_TRUE(f.at("bools").as_array().at(0).as_bool());
  EXPECT_FALSE(f.at("bools").as_array().at(1).as_bool());
  EXPECT_EQ(f.at("i64s").as_array().at(1).as_i64(), 1LL << 40);
  EXPECT_EQ(f.at("f64s").as_array().at(0).as_f64(), 1e300);
}

TEST(GgufMetadata, AccessorsRejectWrongTypesNamingFileAndKey) {
  Writer w;
  w.add("name", make_string("x"));
  w.add("neg", make_i32(-1));
  w.add("big", make_u64(std::numeric_limits<uint64_t>::max()));
  w.add("flag", make_bool(true));
  TempFile tmp;
  w.write(tmp.path);
  const File f = File::open(tmp.path);

  try {
    f.get_u64("name");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(tmp.path), std::string::npos) << msg;
    EXPECT_NE(msg.find("'name'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("STRING"), std::string::npos) << msg;
  }
  EXPECT_THROW(f.get_u64("neg"), Error);  // negative is not unsigned
  EXPECT_EQ(f.at("neg").as_i64(), -1);
  EXPECT_THROW(f.at("big").as_i64(), Error);  // does not fit int64
  EXPECT_THROW(f.get_string("flag"), Error);
  EXPECT_THROW(f.get_string("flag", "fallback"), Error);  // present with the wrong type
  EXPECT_THROW(f.get_bool("name", false), Error);
  EXPECT_THROW(f.at("name").as_array(), Error);
  EXPECT_THROW(f.at("flag").as_f64(), Error);
  EXPECT_EQ(f.get_f64("neg"), -1.0);  // integers widen to double
  try {
    f.at("absent");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("absent"), std::string::npos);
  }
}

TEST(GgufMetadata, WriterRejectsIllFormedValues) {
  Writer w;
  w.add("k", make_u32(1));
  EXPECT_THROW(w.add("k", make_u32(2)), Error);  // duplicate key
  Value bad = make_u8(1);
  bad.data = uint64_t{300};
  EXPECT_THROW(w.add("bad", bad), Error);  // out of U8 range
  EXPECT_THROW(make_array(ValueType::U32, {make_u32(1), make_i32(2)}), Error);
  EXPECT_THROW(w.add("general.alignment", make_u32(48)), Error);
}

}  // namespace
}  // namespace meadow::gguf
