// Key names, tensor names and string values of a model file are arbitrary bytes. Quoted in an
// error, a NUL once cut the text short (what() is a C string) and an ESC reached the terminal:
// both now show escaped, and the text after them survives.
#include <gtest/gtest.h>

#include <string>

#include "gguf_writer.hpp"
#include "meadow/error.hpp"
#include "meadow/runtime/gguf.hpp"
#include "test_util.hpp"

namespace meadow::gguf {
namespace {

using namespace std::string_literals;
using test::Raw;
using test::TempFile;

std::string open_error(const std::vector<uint8_t>& bytes) {
  TempFile tmp("ctl");
  tmp.write(bytes);
  try {
    File::open(tmp.path);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

::testing::AssertionResult printable(const std::string& msg) {
  for (unsigned char c : msg)
    if (c < 0x20 || c == 0x7f)
      return ::testing::AssertionFailure() << "raw control byte " << int(c) << " in: " << msg;
  return ::testing::AssertionSuccess();
}

TEST(GgufControlBytes, AKeyNameInAnErrorIsEscapedAndNotCutAtNul) {
  Raw r;
  r.header(0, 1).str("bad\0key\x1b[2J tail"s).u32(99);  // 99: an unknown value type
  const std::string msg = open_error(r.b);
  EXPECT_NE(msg.find("metadata key 'bad\\x00key\\x1b[2J tail'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("unknown value type 99"), std::string::npos) << msg;
  EXPECT_TRUE(printable(msg));

  Raw dup;
  dup.header(0, 2).str("k\0"s).u32(0).put(uint8_t(1)).str("k\0"s).u32(0).put(uint8_t(2));
  const std::string d = open_error(dup.b);
  EXPECT_NE(d.find("duplicate metadata key 'k\\x00'"), std::string::npos) << d;
}

TEST(GgufControlBytes, ATensorNameInAnErrorIsEscaped) {
  Raw r;
  r.header(1, 0).tensor("w\0\x07x"s, {4}, 0, 3).pad(32).zeros(64);  // offset 3 is misaligned
  const std::string msg = open_error(r.b);
  EXPECT_NE(msg.find("tensor 'w\\x00\\x07x'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("alignment"), std::string::npos) << msg;
  EXPECT_TRUE(printable(msg));
}

TEST(GgufControlBytes, AStringValueOfTheWrongTypeNamesTheKeyEscaped) {
  Writer w;
  w.add("general.architecture", make_string("x"));
  w.add("odd\x1b]0;title\x07", make_string("v"));
  TempFile tmp("val");
  w.write(tmp.path);
  const File f = File::open(tmp.path);
  try {
    f.get_u64("odd\x1b]0;title\x07");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'odd\\x1b]0;title\\x07'"), std::string::npos) << e.what();
    EXPECT_TRUE(printable(e.what()));
  }
}

}  // namespace
}  // namespace meadow::gguf
