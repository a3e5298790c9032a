// WordPiece (tokenizer.ggml.model "bert") on a small phantom-space vocabulary: BERT's basic
// tokenizer steps one by one, greedy longest-match pieces, the [UNK] rules, special tokens in
// the text, [CLS] a [SEP] b [SEP] with token types, and the GGUF keys. (Parity with Hugging Face
// on the real vocabulary: tests/reference/minilm_reference_test.cpp.)
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "gguf_writer.hpp"
#include "meadow/error.hpp"
#include "meadow/runtime/gguf.hpp"
#include "meadow/runtime/tokenizer.hpp"
#include "tokenizer/bert_basic.hpp"

namespace meadow {
namespace {

const std::string kSp = "\xE2\x96\x81";  // U+2581, the phantom space of word-initial pieces

// ids: [PAD] 0, [UNK] 1, [CLS] 2, [SEP] 3, [MASK] 4, then the pieces in this order.
const std::vector<std::string> kPieces = {
    "hello", "world", "un", "una", "#ff", "#aff",  "#able", "a", "#a", "b",  ",", "!", ".",   "-",
    "3",     "5",     "12", "中",  "文",  "naive", "cafe",  "σ", "#α", "#σ", "[", "]", "mask"};

Vocab bert_vocab() {
  Vocab v;
  v.model = "bert";
  for (const char* s : {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}) {
    v.tokens.push_back(s);
    v.types.push_back(int32_t(TokenType::control));
  }
  for (const std::string& p : kPieces) {  // "#x" is the continuation "##x", written "x"
    v.tokens.push_back(p[0] == '#' ? p.substr(1) : kSp + p);
    v.types.push_back(int32_t(TokenType::normal));
  }
  v.pad = 0, v.unk = 1, v.cls = 2, v.sep = 3, v.mask = 4;
  return v;
}

int32_t id(const std::string& piece) {
  for (size_t i = 0; i < kPieces.size(); ++i)
    if (kPieces[i] == piece) return int32_t(i) + 5;
  ADD_FAILURE() << "no piece " << piece;
  return -1;
}

std::vector<int32_t> ids(std::initializer_list<const char*> pieces) {
  std::vector<int32_t> out;
  for (const char* p : pieces) {
    const std::string s = p;
    if (s == "[UNK]")
      out.push_back(1);
    else if (s == "[CLS]")
      out.push_back(2);
    else if (s == "[SEP]")
      out.push_back(3);
    else if (s == "[MASK]")
      out.push_back(4);
    else
      out.push_back(id(s));
  }
  return out;
}

const Tokenizer& tok() {
  static const Tokenizer t = Tokenizer::from_vocab(bert_vocab());
  return t;
}

TEST(WordPiece, GreedyLongestMatchFromTheStart) {
  // "una" is taken first (longest word-initial match), then "ff", then "able": greedy, even
  // though "un" + "aff" + "able" also spells the word.
  EXPECT_EQ(tok().encode("unaffable"), ids({"una", "#ff", "#able"}));
  EXPECT_EQ(tok().encode("aaa"), ids({"a", "#a", "#a"}));
  EXPECT_EQ(tok().encode("hello world"), ids({"hello", "world"}));
}

TEST(WordPiece, AWordWithAnUnmatchedPieceIsOneUnknown) {
  EXPECT_EQ(tok().encode("unaffablez hello"), ids({"[UNK]", "hello"}));
  EXPECT_EQ(tok().encode("xyz"), ids({"[UNK]"}));
  // A continuation never matches a word-initial piece ("b" exists only word-initial).
  EXPECT_EQ(tok().encode("ab"), ids({"[UNK]"}));
}

TEST(WordPiece, WordsOverOneHundredCharactersAreUnknown) {
  const std::vector<int32_t> hundred = tok().encode(std::string(100, 'a'));
  ASSERT_EQ(hundred.size(), 100u);
  EXPECT_EQ(hundred.front(), id("a"));
  EXPECT_EQ(tok().encode(std::string(101, 'a')), ids({"[UNK]"}));
  // Characters, not bytes: 100 two-byte letters are within the limit.
  std::string sigmas;
  for (int i = 0; i < 100; ++i) sigmas += "σ";
  EXPECT_EQ(tok().encode(sigmas).size(), 100u);
  EXPECT_EQ(tok().encode(sigmas + "σ"), ids({"[UNK]"}));
  // Counted after normalization: 101 "à" are 101 "a" once the accents go.
  std::string accented;
  for (int i = 0; i < 101; ++i) accented += "à";
  EXPECT_EQ(tok().encode(accented), ids({"[UNK]"}));
}

TEST(WordPiece, LowerCasesAndStripsAccents) {
  EXPECT_EQ(tok().encode("HeLLo WORLD"), ids({"hello", "world"}));
  EXPECT_EQ(tok().encode("Naïve CAFÉ"), ids({"naive", "cafe"}));
  EXPECT_EQ(tok().encode("nai\xCC\x88ve"), ids({"naive"}));  // i + combining diaeresis
  // Per code point: the final capital sigma is σ, not ς.
  EXPECT_EQ(tok().encode("ΣΑΣ"), ids({"σ", "#α", "#σ"}));
}

TEST(WordPiece, SplitsPunctuationAndNumbers) {
  EXPECT_EQ(tok().encode("hello, world!"), ids({"hello", ",", "world", "!"}));
  EXPECT_EQ(tok().encode("3.5"), ids({"3", ".", "5"}));
  EXPECT_EQ(tok().encode("-12"), ids({"-", "12"}));
}

TEST(WordPiece, CleansControlsAndWhitespace) {
  EXPECT_EQ(tok().encode(std::string("hel\0lo", 6)), ids({"hello"}));
  EXPECT_EQ(tok().encode("hel\xC2\xADlo"), ids({"hello"}));  // soft hyphen (Cf)
  EXPECT_EQ(tok().encode("hel\xFFlo"), ids({"hello"}));      // invalid byte
  EXPECT_EQ(tok().encode("hello\xE3\x80\x80\t\nworld"), ids({"hello", "world"}));  // U+3000
  EXPECT_EQ(tok().encode(""), std::vector<int32_t>{});
  EXPECT_EQ(tok().encode(" \t\r\n "), std::vector<int32_t>{});
}

TEST(WordPiece, IsolatesChineseCharacters) {
  EXPECT_EQ(tok().encode("中文"), ids({"中", "文"}));
  EXPECT_EQ(tok().encode("a中b"), ids({"a", "中", "b"}));
}

TEST(WordPiece, SpecialTokensWrittenInTheText) {
  EXPECT_EQ(tok().encode("a[MASK]b"), ids({"a", "[MASK]", "b"}));
  // Matched verbatim only: other spellings are ordinary punctuation and words.
  EXPECT_EQ(tok().encode("[mask]"), ids({"[", "mask", "]"}));
  EXPECT_EQ(tok().encode("a[MASK]b", /*parse_special=*/false), ids({"a", "[", "mask", "]", "b"}));
}

TEST(WordPiece, SegmentsWithTokenTypes) {
  const SegmentIds one = tok().encode_segments("hello world");
  EXPECT_EQ(one.ids, ids({"[CLS]", "hello", "world", "[SEP]"}));
  EXPECT_EQ(one.types, (std::vector<int32_t>{0, 0, 0, 0}));
  const SegmentIds two = tok().encode_segments("hello", "3.5");
  EXPECT_EQ(two.ids, ids({"[CLS]", "hello", "[SEP]", "3", ".", "5", "[SEP]"}));
  EXPECT_EQ(two.types, (std::vector<int32_t>{0, 0, 0, 1, 1, 1, 1}));
  const SegmentIds empty = tok().encode_segments("", "");
  EXPECT_EQ(empty.ids, ids({"[CLS]", "[SEP]", "[SEP]"}));
  EXPECT_EQ(empty.types, (std::vector<int32_t>{0, 0, 1}));
}

TEST(WordPiece, DecodeJoinsPiecesAtThePhantomSpaces) {
  EXPECT_EQ(tok().decode(ids({"una", "#ff", "#able", "hello"})), "unaffable hello");
  EXPECT_EQ(tok().decode(ids({"[CLS]", "hello", "[SEP]"}), /*skip_special=*/true), "hello");
}

TEST(WordPiece, VocabularyChecks) {
  Vocab no_unk = bert_vocab();
  no_unk.unk.reset();
  EXPECT_THROW(Tokenizer::from_vocab(no_unk), Error);
  Vocab no_cls = bert_vocab();
  no_cls.cls.reset();
  const Tokenizer t = Tokenizer::from_vocab(no_cls);
  EXPECT_EQ(t.encode("hello"), ids({"hello"}));
  EXPECT_THROW(t.encode_segments("hello"), Error);
  Vocab bad_sep = bert_vocab();
  bad_sep.sep = 9999;
  EXPECT_THROW(Tokenizer::from_vocab(bad_sep), Error);
}

// Each token's bytes of the text: pieces of one word split it, accents and case map back to the
// characters they came from, removed characters fall between tokens, an unknown word covers
// itself, a special token written in the text its own bytes. (Against `tokenizers`' offsets on
// the real vocabulary: tests/reference/minilm_reference_test.cpp.)
TEST(WordPiece, OffsetsAreTheBytesOfTheText) {
  auto spans = [](std::string_view text) {
    std::vector<int32_t> got;
    std::vector<TokenOffset> off;
    tok().encode_offsets(text, true, got, off);
    EXPECT_EQ(got, tok().encode(text)) << text;
    std::vector<std::string> out;
    for (const auto& o : off) out.emplace_back(text.substr(o.begin, o.end - o.begin));
    return out;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(spans("unaffable  Hello, world!"),
            (V{"una", "ff", "able", "Hello", ",", "world", "!"}));
  EXPECT_EQ(spans("Naïve CAFÉ"), (V{"Naïve", "CAFÉ"}));
  EXPECT_EQ(spans("nai\xCC\x88ve"), (V{"nai\xCC\x88ve"}));  // the mark inside the word
  EXPECT_EQ(spans("ΣΑΣ"), (V{"Σ", "Α", "Σ"}));
  EXPECT_EQ(spans("hel\xC2\xADlo a中b"), (V{"hel\xC2\xADlo", "a", "中", "b"}));
  EXPECT_EQ(spans("zzz 3.5"), (V{"zzz", "3", ".", "5"}));
  EXPECT_EQ(spans("a[MASK]b"), (V{"a", "[MASK]", "b"}));
  EXPECT_EQ(spans(""), V{});
  // Byte-level BPE pieces need not end on a character: no offsets there.
  Vocab bpe;
  bpe.tokens = {"a"};
  const Tokenizer byte_level = Tokenizer::from_vocab(bpe);
  std::vector<int32_t> got;
  std::vector<TokenOffset> off;
  EXPECT_THROW(byte_level.encode_offsets("a", true, got, off), Error);
}

// The character classes at their edges (general categories as of Unicode 8.0, as the
// reference's tables have them).
TEST(BertBasic, CharacterClasses) {
  using namespace tokenizer;
  EXPECT_TRUE(bert_is_cjk(0x4E00));
  EXPECT_TRUE(bert_is_cjk(0x2B81F));
  EXPECT_FALSE(bert_is_cjk(0x2B820));  // Hugging Face's fifth range starts at 0x2B920
  EXPECT_TRUE(bert_is_cjk(0x2B920));
  EXPECT_FALSE(bert_is_cjk(0x3042));  // hiragana: words, not ideographs
  for (char32_t c : {U'$', U'^', U'`', U'~', U'¿', U'«', U'—', U'\u166D'})
    EXPECT_TRUE(bert_is_punctuation(c)) << std::hex << uint32_t(c);
  for (char32_t c : {U'a', U'€', U'°', U'\u061D'})  // U+061D: Po, but only since 14.0
    EXPECT_FALSE(bert_is_punctuation(c)) << std::hex << uint32_t(c);
  EXPECT_TRUE(bert_is_control(0x00AD));
  EXPECT_TRUE(bert_is_control(0x0007));
  EXPECT_TRUE(bert_is_control(0xE000));
  EXPECT_FALSE(bert_is_control('\t'));
  EXPECT_FALSE(bert_is_control(0x0890));  // Cf, but assigned after 8.0
  EXPECT_TRUE(bert_is_whitespace(0x3000));
  EXPECT_TRUE(bert_is_whitespace('\r'));
  EXPECT_FALSE(bert_is_whitespace(0x200B));
}

// tokenizer.ggml.cls_token_id / seperator_token_id (llama.cpp's spelling) come from the file.
TEST(WordPiece, FromGgufReadsClsAndSeparator) {
  const Vocab v = bert_vocab();
  gguf::Writer w;
  w.add("general.architecture", gguf::make_string("bert"));
  w.add("tokenizer.ggml.model", gguf::make_string("bert"));
  w.add("tokenizer.ggml.tokens", gguf::make_strings(v.tokens));
  w.add("tokenizer.ggml.token_type", gguf::make_i32s(v.types));
  w.add("tokenizer.ggml.unknown_token_id", gguf::make_u32(1));
  w.add("tokenizer.ggml.cls_token_id", gguf::make_u32(2));
  w.add("tokenizer.ggml.seperator_token_id", gguf::make_u32(3));
  const std::string path =
      std::string(MEADOW_BINARY_DIR) + "/wordpiece_test_" + std::to_string(getpid()) + ".gguf";
  w.write(path);
  const Tokenizer t = Tokenizer::from_gguf(gguf::File::open(path));
  std::filesystem::remove(path);
  EXPECT_EQ(t.model(), "bert");
  EXPECT_EQ(t.cls_id(), 2);
  EXPECT_EQ(t.sep_id(), 3);
  EXPECT_EQ(t.encode_segments("hello").ids, ids({"[CLS]", "hello", "[SEP]"}));
}

}  // namespace
}  // namespace meadow
