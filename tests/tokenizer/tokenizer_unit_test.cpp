// Tokenizer behaviour on small synthetic vocabularies: merges, added tokens, invalid UTF-8,
// and rejection of bad tables.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <thread>

#include "meadow/error.hpp"
#include "meadow/runtime/tokenizer.hpp"
#include "tiny_vocab.hpp"

namespace meadow {
namespace {

using test::add_merge;
using test::add_token;
using test::byte_level;
using test::byte_vocab;

int32_t byte_id(unsigned char b) {
  return b;
}  // byte_vocab puts byte b at id b

TEST(Tokenizer, EmptyTextGivesNoIds) {
  auto tok = Tokenizer::from_vocab(byte_vocab());
  EXPECT_TRUE(tok.encode("").empty());
  EXPECT_EQ(tok.decode({}), "");
}

TEST(Tokenizer, MergesApplyLowestRankFirst) {
  Vocab v = byte_vocab();
  int32_t bc = add_merge(v, "b", "c");  // rank 0
  int32_t ab = add_merge(v, "a", "b");  // rank 1
  auto tok = Tokenizer::from_vocab(v);
  EXPECT_EQ(tok.encode("abc"), (std::vector<int32_t>{byte_id('a'), bc}));
  EXPECT_EQ(tok.encode("ab"), (std::vector<int32_t>{ab}));

  Vocab w = byte_vocab();  // same merges, opposite priority
  int32_t ab2 = add_merge(w, "a", "b");
  add_merge(w, "b", "c");
  EXPECT_EQ(Tokenizer::from_vocab(w).encode("abc"), (std::vector<int32_t>{ab2, byte_id('c')}));
}

TEST(Tokenizer, EqualRankPairsMergeLeftmostFirst) {
  Vocab v = byte_vocab();
  int32_t aa = add_merge(v, "a", "a");
  auto tok = Tokenizer::from_vocab(v);
  EXPECT_EQ(tok.encode("aaa"), (std::vector<int32_t>{aa, byte_id('a')}));
  EXPECT_EQ(tok.encode("aaaa"), (std::vector<int32_t>{aa, aa}));
}

// Plain string BPE written from the definition, to check both merge paths (short pieces and
// long ones) on random merge tables.
std::vector<std::string> naive_bpe(const std::string& word,
                                   const std::map<std::pair<std::string, std::string>, int>& rank) {
  std::vector<std::string> s;
  for (char c : word) s.emplace_back(1, c);
  while (s.size() > 1) {
    int best = -1, best_rank = INT32_MAX;
    for (size_t i = 0; i + 1 < s.size(); ++i) {
      auto it = rank.find({s[i], s[i + 1]});
      if (it != rank.end() && it->second < best_rank)
        best = static_cast<int>(i), best_rank = it->second;
    }
    if (best < 0) break;
    s[best] += s[best + 1];
    s.erase(s.begin() + best + 1);
  }
  return s;
}

TEST(Tokenizer, MergesMatchPlainBpeOnRandomTables) {
  std::mt19937 rng(12345);
  for (int trial = 0; trial < 20; ++trial) {
    Vocab v = byte_vocab();
    std::vector<std::string> pool = {"a", "b", "c"};
    std::map<std::pair<std::string, std::string>, int> rank;
    std::map<std::string, int32_t> id_of = {{"a", 'a'}, {"b", 'b'}, {"c", 'c'}};
    for (int m = 0; m < 40; ++m) {
      std::string l = pool[rng() % pool.size()], r = pool[rng() % pool.size()];
      if (id_of.count(l + r) || l.size() + r.size() > 12) continue;
      rank[{l, r}] = static_cast<int>(v.merges.size());
      id_of[l + r] = add_merge(v, l, r);
      pool.push_back(l + r);
    }
    auto tok = Tokenizer::from_vocab(v);
    for (int len : {2, 5, 17, 47, 48, 49, 120, 400}) {
      std::string word;
      for (int i = 0; i < len; ++i) word += "abc"[rng() % 3];
      std::vector<int32_t> want;
      for (const auto& piece : naive_bpe(word, rank)) want.push_back(id_of.at(piece));
      ASSERT_EQ(tok.encode(word), want) << "trial " << trial << " word " << word;
    }
  }
}

TEST(Tokenizer, ControlTokensNeedParseSpecialUserTokensDoNot) {
  Vocab v = byte_vocab();
  int32_t ctrl = add_token(v, "<|end|>", TokenType::control);
  int32_t user = add_token(v, "<think>", TokenType::user_defined);
  auto tok = Tokenizer::from_vocab(v);
  auto with = tok.encode("a<|end|><think>");
  EXPECT_EQ(with, (std::vector<int32_t>{'a', ctrl, user}));
  auto without = tok.encode("a<|end|><think>", /*parse_special=*/false);
  ASSERT_EQ(without.back(), user);
  EXPECT_EQ(std::count(without.begin(), without.end(), ctrl), 0);
  EXPECT_EQ(tok.decode(without), "a<|end|><think>");
}

TEST(Tokenizer, SpecialTokensTakeEarliestThenLongestMatch) {
  Vocab v = byte_vocab();
  int32_t s = add_token(v, "<s>", TokenType::control);
  int32_t longer = add_token(v, "<s>x", TokenType::control);
  int32_t inner = add_token(v, "s>x<", TokenType::control);
  auto tok = Tokenizer::from_vocab(v);
  EXPECT_EQ(tok.encode("<s>x"), (std::vector<int32_t>{longer}));
  EXPECT_EQ(tok.encode("<s>y"), (std::vector<int32_t>{s, 'y'}));
  // "<s>x<" : "<s>x" starts earlier than "s>x<", so it wins.
  EXPECT_EQ(tok.encode("<s>x<"), (std::vector<int32_t>{longer, '<'}));
  EXPECT_EQ(tok.encode("-s>x<"), (std::vector<int32_t>{'-', inner}));
  EXPECT_EQ(tok.decode(std::vector<int32_t>{s, 'y', longer}, /*skip_special=*/true), "y");
}

TEST(Tokenizer, InvalidUtf8BytesBecomeByteTokensAndRoundTrip) {
  Vocab v = byte_vocab();
  int32_t ab = add_merge(v, "a", "b");
  auto tok = Tokenizer::from_vocab(v);
  const std::string cases[] = {
      "ab\xFF"
      "ab",
      "\xE4\xBD",
      "ab\xC0\xAF",
      "\xED\xA0\x80",
      "\xF4\x90\x80\x80",
      "\x80",
      "caf\xC3"};
  for (const auto& s : cases) {
    auto ids = tok.encode(s);
    EXPECT_EQ(tok.decode(ids), s);
  }
  EXPECT_EQ(tok.encode("ab\xFF"
                       "ab"),
            (std::vector<int32_t>{ab, 0xFF, ab}));
  EXPECT_EQ(tok.encode("\xE4\xBD"), (std::vector<int32_t>{0xE4, 0xBD}));
}

TEST(Tokenizer, DecodeRejectsIdsOutsideVocabulary) {
  auto tok = Tokenizer::from_vocab(byte_vocab());
  EXPECT_THROW(tok.decode(std::vector<int32_t>{1, 256}), Error);
  EXPECT_THROW(tok.decode(std::vector<int32_t>{-1}), Error);
  EXPECT_THROW(tok.token(999), Error);
  EXPECT_EQ(tok.token(' '), byte_level(" "));
  EXPECT_EQ(tok.find(byte_level("!")), '!');
  EXPECT_FALSE(tok.find("no such token"));
}

TEST(Tokenizer, ConcurrentEncodingAgrees) {
  Vocab v = byte_vocab();
  add_merge(v, "h", "e");
  add_merge(v, "he", "l");
  auto tok = Tokenizer::from_vocab(v);
  std::string text;
  for (int i = 0; i < 200; ++i) text += "hello help shell " + std::to_string(i) + "\n";
  auto want = tok.encode(text);
  std::vector<std::thread> threads;
  std::vector<int> ok(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] { ok[t] = tok.encode(text) == want; });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok, std::vector<int>(4, 1));
}

void expect_error(Vocab v, const std::string& needle) {
  try {
    Tokenizer::from_vocab(std::move(v));
    ADD_FAILURE() << "expected meadow::Error containing '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(Tokenizer, BadVocabulariesAreRejectedWithClearErrors) {
  Vocab wrong_model = byte_vocab();
  wrong_model.model = "llama";
  expect_error(wrong_model, "unsupported tokenizer model 'llama'");
  expect_error(Vocab{}, "no tokens");

  Vocab unknown_merge = byte_vocab();
  unknown_merge.merges.push_back("a zz");
  expect_error(unknown_merge, "references unknown token 'zz'");
  Vocab no_result = byte_vocab();
  no_result.merges.push_back("a b");  // "ab" is not a token
  expect_error(no_result, "references unknown token 'ab'");
  Vocab no_space = byte_vocab();
  no_space.merges.push_back("ab");
  expect_error(no_space, "not two tokens");

  Vocab types = byte_vocab();
  types.types.pop_back();
  expect_error(types, "token_type has 255 entries for 256 tokens");
  Vocab bad_type = byte_vocab();
  bad_type.types[3] = 9;
  expect_error(bad_type, "invalid type 9");
  Vocab bad_id = byte_vocab();
  bad_id.eos = 256;
  expect_error(bad_id, "eos token id 256");
  Vocab bad_pre = byte_vocab("klingon");
  expect_error(bad_pre, "unsupported pre-tokenizer 'klingon'");
}

// Token, merge and pre-tokenizer texts come from the model file: quoted escaped, so a NUL
// does not cut the message and an ESC does not reach the terminal.
TEST(Tokenizer, FileTextInErrorsIsEscaped) {
  using namespace std::string_literals;
  Vocab merge = byte_vocab();
  merge.merges.push_back("a \x1b[2Jz\0tail"s);
  expect_error(merge, "references unknown token '\\x1b[2Jz\\x00tail'");
  Vocab pre = byte_vocab("qwen\0\x07"s);
  expect_error(pre, "unsupported pre-tokenizer 'qwen\\x00\\x07'");
  Vocab model = byte_vocab();
  model.model = "bpe\x1b"s;
  expect_error(model, "unsupported tokenizer model 'bpe\\x1b'");
}

TEST(Tokenizer, MissingByteTokenUsesUnknownOrFails) {
  Vocab v = byte_vocab();
  v.tokens['z'] = "<unk>";  // byte 'z' no longer has its token; id 'z' becomes <unk>
  v.types['z'] = static_cast<int32_t>(TokenType::unknown);
  v.unk = 'z';
  EXPECT_EQ(Tokenizer::from_vocab(v).encode("az", false), (std::vector<int32_t>{'a', 'z'}));
  v.unk.reset();
  auto tok = Tokenizer::from_vocab(v);
  EXPECT_THROW(tok.encode("z"), Error);
}

}  // namespace
}  // namespace meadow
