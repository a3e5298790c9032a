// util::printable / util::quoted: file text shown on a terminal or in an error message.
#include "util/printable.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using meadow::util::printable;
using meadow::util::quoted;

TEST(Printable, EscapesControlBytesAndKeepsText) {
  using namespace std::string_literals;
  EXPECT_EQ(printable("plain text, ünïcode ✓"), "plain text, ünïcode ✓");
  EXPECT_EQ(printable("a\x1b[31mred"), "a\\x1b[31mred");
  EXPECT_EQ(printable("key\0tail"s), "key\\x00tail");  // a NUL no longer ends the message
  EXPECT_EQ(printable("a\nb\tc\rd\x7f"), "a\\nb\\tc\\rd\\x7f");
  EXPECT_EQ(printable("a\nb", true), "a\nb");
  EXPECT_EQ(printable("back\\slash"), "back\\slash");
}

TEST(Printable, EscapesC1ControlsAndInvalidUtf8) {
  EXPECT_EQ(printable("\xc2\x9b"
                      "2J"),
            "\\xc2\\x9b2J");                     // U+009B, CSI on some terminals
  EXPECT_EQ(printable("\xc2\xa0"), "\xc2\xa0");  // U+00A0 is printable
  EXPECT_EQ(printable("\xff\xfe"), "\\xff\\xfe");
  EXPECT_EQ(printable("\xe2\x9c"), "\\xe2\\x9c");                    // truncated sequence
  EXPECT_EQ(printable("\xc0\xaf"), "\\xc0\\xaf");                    // overlong '/'
  EXPECT_EQ(printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");           // a UTF-16 surrogate
  EXPECT_EQ(printable("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // past U+10FFFF
  EXPECT_EQ(printable("\xf0\x9f\x98\x80"), "\xf0\x9f\x98\x80");      // U+1F600
}

TEST(Printable, EscapingTwiceChangesNothing) {
  const std::string once = printable(std::string("\x00\x01\x1b\xff\xc2\x85 ok\\x41", 11));
  EXPECT_EQ(printable(once), once);
}

TEST(Quoted, CutsLongTextAtACharacterBoundary) {
  EXPECT_EQ(quoted("abc"), "'abc'");
  EXPECT_EQ(quoted("abcdef", 4), "'abcd...'");
  EXPECT_EQ(quoted("ab\xc3\xa9z", 3), "'ab...'");  // never half of 'é'
  EXPECT_EQ(quoted(std::string(1000, 'x'), 80).size(), 80u + 5u);
  EXPECT_EQ(quoted("\x1b"), "'\\x1b'");
}

}  // namespace
