// util::parse_json / json_excerpt / json_depth: hostile JSON gives one clear line, never a
// stack overflow.
#include "util/json_parse.hpp"

#include <gtest/gtest.h>

#include <string>

#include "meadow/error.hpp"

namespace {

using meadow::util::json_depth;
using meadow::util::json_excerpt;
using meadow::util::parse_json;
using nlohmann::json;

std::string nested(size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

// The message of the meadow::Error that parse_json throws for text ("" if it parses).
std::string error_of(const std::string& text, const std::string& what = "file x.json") {
  try {
    parse_json(text, what);
  } catch (const meadow::Error& e) {
    return e.what();
  }
  return "";
}

TEST(ParseJson, ParsesWhatNlohmannParses) {
  const std::string text =
      R"({"a": [1, -2, 3.5, "x", null, true, {"b": []}], "c": 18446744073709551615})";
  EXPECT_EQ(parse_json(text, "t"), json::parse(text));
  EXPECT_EQ(parse_json(nested(64), "t"), json::parse(nested(64)));
  EXPECT_TRUE(parse_json("[1, 2]", "t")[1].is_number_unsigned() ||
              parse_json("[1, 2]", "t")[1].is_number_integer());
  EXPECT_EQ(parse_json(R"({"k": 1, "k": 2})", "t")["k"], 2);  // the last duplicate wins, as in
                                                              // nlohmann::json::parse
}

TEST(ParseJson, DeepNestingIsAnErrorNamingTheInput) {
  for (size_t depth : {65u, 20000u, 70000u}) {
    const std::string msg = error_of(nested(depth));
    EXPECT_NE(msg.find("file x.json: invalid JSON"), std::string::npos) << msg;
    EXPECT_NE(msg.find("nested deeper than 64 levels"), std::string::npos) << msg;
    EXPECT_LT(msg.size(), 300u) << msg;
  }
  std::string objects;
  for (int i = 0; i < 70000; ++i) objects += "{\"a\":";
  EXPECT_NE(error_of(objects).find("nested deeper"), std::string::npos) << error_of(objects);
}

TEST(ParseJson, NumbersOutOfRangeSayWhichItemAndWhatWasWrong) {
  EXPECT_EQ(error_of("[0, 1, 1e400]"),
            "file x.json: invalid JSON at [2]: number '1e400' is out of range of a double");
  EXPECT_EQ(error_of("[0, [1, -1e999]]"),
            "file x.json: invalid JSON at [1][1]: number '-1e999' is out of range of a double");
  EXPECT_EQ(error_of("[99999999999999999999999]"),
            "file x.json: invalid JSON at [0]: integer '99999999999999999999999' does not fit in "
            "64 bits");
  EXPECT_EQ(error_of(R"({"gravity": 1e400})", "--kwargs"),
            "--kwargs: invalid JSON at ['gravity']: number '1e400' is out of range of a double");
  EXPECT_EQ(error_of("1e400"),
            "file x.json: invalid JSON: number '1e400' is out of range of a double");
  EXPECT_EQ(parse_json("[1e308, -9223372036854775808]", "t")[0], 1e308);
}

TEST(ParseJson, SyntaxErrorsAreOneLineNamingTheInput) {
  for (const char* text : {"[0, 1", "{bad", "", "[1] x", "[\"\n\"]"}) {
    const std::string msg = error_of(text);
    EXPECT_EQ(msg.rfind("file x.json: invalid JSON", 0), 0u) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
}

TEST(JsonExcerpt, IsDumpWhenShortAndCutWhenLong) {
  const json v = json::parse(R"({"a":[1,2.5,"x",null,true,{"b":[]}],"c":{}})");
  EXPECT_EQ(json_excerpt(v, 1000), v.dump());
  EXPECT_EQ(json_excerpt(json::array(), 10), "[]");
  EXPECT_EQ(json_excerpt(json(7), 10), "7");
  const std::string cut = json_excerpt(json(std::vector<int>(1000, 12345)), 20);
  EXPECT_EQ(cut, "[12345,12345,12345,1...");
  EXPECT_EQ(json_excerpt(json("bad \xff utf-8"), 100), "\"bad \xef\xbf\xbd utf-8\"");
}

TEST(JsonExcerpt, ADeepValueNeverRecurses) {
  json deep = json::array();
  for (int i = 0; i < 200000; ++i) {  // moved in, never copied: a copy would recurse
    json outer = json::array();
    outer.push_back(std::move(deep));
    deep = std::move(outer);
  }
  EXPECT_EQ(json_excerpt(deep, 10), "[[[[[[[[[[...");
  EXPECT_EQ(json_depth(deep), 200001u);
}

TEST(JsonDepth, CountsContainerLevels) {
  EXPECT_EQ(json_depth(json(1)), 0u);
  EXPECT_EQ(json_depth(json::array()), 1u);
  EXPECT_EQ(json_depth(json::parse(R"({"a": [[1], 2], "b": {}})")), 3u);
}

}  // namespace
