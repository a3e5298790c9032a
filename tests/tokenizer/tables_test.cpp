// The tokenizer's compact tables: strings in one buffer with a text -> id index, and merges
// stored by left id.
#include <gtest/gtest.h>

#include <string>

#include "tokenizer/bpe.hpp"
#include "tokenizer/string_table.hpp"

namespace meadow::tokenizer {
namespace {

TEST(StringTable, KeepsTextsAndFindsTheFirstOfEqualOnes) {
  StringTable t;
  for (const char* s : {"a", "", "hello", "a", "\xC4\xA0the", "b"}) t.add(s);
  t.index();
  ASSERT_EQ(t.size(), 6);
  EXPECT_EQ(t[0], "a");
  EXPECT_EQ(t[1], "");
  EXPECT_EQ(t[2], "hello");
  EXPECT_EQ(t[4], "\xC4\xA0the");
  EXPECT_EQ(t.find("a"), 0);  // id 3 repeats it; the first wins
  EXPECT_EQ(t.find(""), 1);
  EXPECT_EQ(t.find("b"), 5);
  EXPECT_EQ(t.find("hell"), std::nullopt);
  EXPECT_EQ(t.find("c"), std::nullopt);
}

TEST(StringTable, FindsEveryOneOfManyStrings) {
  StringTable t;
  for (int i = 0; i < 5000; ++i) t.add("tok" + std::to_string(i));
  t.index();
  for (int i = 0; i < 5000; ++i) ASSERT_EQ(t.find("tok" + std::to_string(i)), i);
  EXPECT_EQ(t.find("tok5000"), std::nullopt);
  StringTable empty;
  EXPECT_EQ(empty.find("x"), std::nullopt);  // no index built
  empty.index();
  EXPECT_EQ(empty.find(""), std::nullopt);
}

TEST(MergeTable, FindsPairsAndKeepsTheFirstAddedOfARepeatedPair) {
  MergeTable m;
  m.add(3, 1, {0, 10});
  m.add(1, 2, {1, 11});
  m.add(3, 0, {2, 12});
  m.add(1, 2, {3, 13});  // the same pair again at a lower priority: ignored
  m.add(9, 0, {4, 14});  // outside the vocabulary of 5: dropped
  m.finish(5);
  EXPECT_EQ(m.size(), 3u);
  ASSERT_NE(m.find(1, 2), nullptr);
  EXPECT_EQ(m.find(1, 2)->rank, 1);
  EXPECT_EQ(m.find(1, 2)->result, 11);
  EXPECT_EQ(m.find(3, 0)->result, 12);
  EXPECT_EQ(m.find(3, 1)->result, 10);
  EXPECT_EQ(m.find(2, 1), nullptr);
  EXPECT_EQ(m.find(4, 0), nullptr);
  EXPECT_EQ(m.find(-1, 0), nullptr);
  EXPECT_EQ(m.find(5, 0), nullptr);
  EXPECT_EQ(m.find(9, 0), nullptr);
}

}  // namespace
}  // namespace meadow::tokenizer
