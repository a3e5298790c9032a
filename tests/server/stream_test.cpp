// What a stream may send of the text so far (src/server/stream.hpp): never the start of a stop
// string that a later commit could complete, never half a UTF-8 character.
#include <gtest/gtest.h>

#include <string>

#include "server/stream.hpp"

namespace {

using meadow::server::stable_length;

TEST(StableLength, HoldsBackWhatAStopStringCouldStillCut) {
  EXPECT_EQ(stable_length("hello wor", 0), 9u);
  EXPECT_EQ(stable_length("hello wor", 3), 6u);  // "wor" may begin a 4-byte stop string
  EXPECT_EQ(stable_length("ab", 5), 0u);
}

TEST(StableLength, NeverSplitsAUtf8Character) {
  const std::string e = "caf\xC3\xA9";  // café: é is 2 bytes
  EXPECT_EQ(stable_length(e, 0), 5u);
  EXPECT_EQ(stable_length(e.substr(0, 4), 0), 3u);         // the lead byte alone waits
  const std::string euro{'\xE2', '\x82', '\xAC'};          // 3 bytes
  const std::string grin{'\xF0', '\x9F', '\x98', '\x80'};  // 4 bytes
  EXPECT_EQ(stable_length('x' + euro.substr(0, 2), 0), 1u);
  EXPECT_EQ(stable_length('x' + euro, 0), 4u);
  EXPECT_EQ(stable_length('a' + grin.substr(0, 3), 0), 1u);
  EXPECT_EQ(stable_length('a' + grin, 0), 5u);
  EXPECT_EQ(stable_length('a' + grin + 'b', 1), 5u);  // b held back; the character is whole
}

}  // namespace
