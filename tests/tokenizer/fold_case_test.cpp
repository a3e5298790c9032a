// The case fold of vocabularies trained folded (Vocab::fold_case, meadow.tokenizer.fold_case):
// the same rule as train/tokenizer/bpe.py's fold_case, which tests/train/test_runtime_parity.py
// compares id for id on an exported model.
#include "tokenizer/fold_case.hpp"

#include <gtest/gtest.h>

#include "meadow/runtime/tokenizer.hpp"
#include "tiny_vocab.hpp"

namespace meadow {
namespace {

std::string folded(std::string_view s) {
  std::string out;
  return tokenizer::fold_case(s, out) ? out : std::string(s);
}

TEST(FoldCase, LowerCasesWordsAndKeepsLoneCapitals) {
  EXPECT_EQ(folded("Rule: Part means C. If POLE leans, pick B."),
            "rule: part means C. if pole leans, pick B.");
  EXPECT_EQ(folded("I go, AI ok, xY, A car"), "I go, ai ok, xy, A car");
  EXPECT_EQ(folded("B2 (C) D-E"), "B2 (C) D-E");  // digits and punctuation are not letters
}

TEST(FoldCase, NonAsciiIsNeverTouchedNorCountsAsALetter) {
  EXPECT_EQ(folded("\xc3\x9c"
                   "ber \xc3\x84"
                   "B"),
            "\xc3\x9c"
            "ber \xc3\x84"
            "B");  // Über ÄB
  EXPECT_EQ(folded("Ab\xc3\xa9"
                   "C"),
            "ab\xc3\xa9"
            "C");
  std::string out = "untouched";
  EXPECT_FALSE(tokenizer::fold_case("already folded, A B", out));
  EXPECT_EQ(out, "untouched");
}

TEST(FoldCase, TokenizerFoldsOnlyWhenTheVocabularyAsks) {
  Vocab v = test::byte_vocab("qwen2");
  int32_t im_start = test::add_token(v, "<|im_start|>", TokenType::control);
  Tokenizer plain = Tokenizer::from_vocab(v);
  v.fold_case = true;
  Tokenizer fold = Tokenizer::from_vocab(v);
  EXPECT_FALSE(plain.fold_case());
  EXPECT_TRUE(fold.fold_case());
  EXPECT_EQ(fold.encode("Pole POLE"), plain.encode("pole pole"));
  EXPECT_NE(plain.encode("Pole"), plain.encode("pole"));
  // special tokens are matched before folding; the text after one is folded on its own
  auto ids = fold.encode("<|im_start|>User A");
  ASSERT_FALSE(ids.empty());
  EXPECT_EQ(ids[0], im_start);
  EXPECT_EQ(fold.decode(ids), "<|im_start|>user A");
  // invalid UTF-8 between letters: the fold still applies to the runs around it
  EXPECT_EQ(fold.decode(fold.encode("Ab\xff"
                                    "Cd")),
            "ab\xff"
            "cd");
}

}  // namespace
}  // namespace meadow
