// The tokenizer on arbitrary text, over the three pre-tokenizer families, with a small
// vocabulary of the tests' kind (tests/tokenizer/tiny_vocab.hpp: the 256 byte tokens, a few
// merges, control and user-defined tokens). Must hold:
//   gpt2 / llama3 families: decode(encode(text)) == text for any bytes (invalid UTF-8 becomes
//     byte tokens, which decode back), with and without parsing special tokens;
//   qwen2 family (NFC first): decode(encode(text)) == NFC(text) for valid UTF-8;
//   every id is inside the vocabulary, and encoding twice gives the same ids (piece cache);
//   WordPiece (a small "bert" vocabulary): ids inside the vocabulary, any bytes; words never
//   reach across a space, so encode(text + " " + text) is encode(text) twice; encode_segments
//   is [CLS] ids [SEP] with types 0.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "meadow/runtime/tokenizer.hpp"
#include "tokenizer/normalize_nfc.hpp"
#include "tokenizer/tiny_vocab.hpp"

namespace {

using namespace meadow;

Tokenizer make(const std::string& pre, bool user_defined) {
  Vocab v = test::byte_vocab(pre);
  for (auto [a, b] : std::vector<std::pair<std::string, std::string>>{{"t", "h"},
                                                                      {"h", "e"},
                                                                      {"th", "e"},
                                                                      {" ", "t"},
                                                                      {" t", "he"},
                                                                      {"i", "n"},
                                                                      {"in", "g"},
                                                                      {"e", "r"},
                                                                      {" ", "a"},
                                                                      {"a", "n"},
                                                                      {"o", "n"},
                                                                      {"r", "e"},
                                                                      {"\xc3", "\xa9"},
                                                                      {"\xe2", "\x9c"},
                                                                      {"\xe2\x9c", "\x93"},
                                                                      {"1", "2"},
                                                                      {" ", " "},
                                                                      {"\n", "\n"}})
    test::add_merge(v, a, b);
  test::add_token(v, "<|im_start|>", TokenType::control);
  test::add_token(v, "<|endoftext|>", TokenType::control);
  if (user_defined) test::add_token(v, "<think>", TokenType::user_defined);
  return Tokenizer::from_vocab(std::move(v));
}

// Valid UTF-8 as RFC 3629 defines it (no overlongs, surrogates or code points past U+10FFFF).
bool valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const auto b = static_cast<uint8_t>(s[i]);
    size_t n = b < 0x80                 ? 1
               : b >= 0xC2 && b <= 0xDF ? 2
               : b >= 0xE0 && b <= 0xEF ? 3
               : b >= 0xF0 && b <= 0xF4 ? 4
                                        : 0;
    if (n == 0 || i + n > s.size()) return false;
    const auto c1 = n > 1 ? static_cast<uint8_t>(s[i + 1]) : 0x80;
    if (b == 0xE0 && c1 < 0xA0) return false;
    if (b == 0xED && c1 > 0x9F) return false;
    if (b == 0xF0 && c1 < 0x90) return false;
    if (b == 0xF4 && c1 > 0x8F) return false;
    for (size_t k = 1; k < n; ++k)
      if ((static_cast<uint8_t>(s[i + k]) & 0xC0) != 0x80) return false;
    i += n;
  }
  return true;
}

std::vector<int32_t> checked_encode(const Tokenizer& tok, std::string_view text, bool special) {
  const auto ids = tok.encode(text, special);
  for (int32_t id : ids)
    if (id < 0 || id >= tok.size()) std::abort();
  if (tok.encode(text, special) != ids) std::abort();  // the piece cache changes nothing
  return ids;
}

// [PAD] [UNK] [CLS] [SEP] [MASK], then word-initial pieces (U+2581 + text) and continuations.
Tokenizer make_wordpiece() {
  Vocab v;
  v.model = "bert";
  for (const char* s : {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}) {
    v.tokens.push_back(s);
    v.types.push_back(int32_t(TokenType::control));
  }
  const std::string sp = "\xE2\x96\x81";
  for (const char* s : {"the", "a", "un", "in", ",", ".", "1", "\xE4\xB8\xAD", "\xCF\x83"})
    v.tokens.push_back(sp + s);
  for (const char* s : {"a", "e", "ing", "s", "1", "\xCF\x83", "\xE2\x96\x81"})
    v.tokens.push_back(s);
  v.types.resize(v.tokens.size(), int32_t(TokenType::normal));
  v.unk = 1, v.cls = 2, v.sep = 3;
  return Tokenizer::from_vocab(std::move(v));
}

void check_wordpiece(const Tokenizer& tok, std::string_view text) {
  const auto ids = checked_encode(tok, text, true);
  const std::string twice = std::string(text) + " " + std::string(text);
  auto both = ids;
  both.insert(both.end(), ids.begin(), ids.end());
  if (checked_encode(tok, twice, true) != both) std::abort();
  const SegmentIds s = tok.encode_segments(text);
  if (s.ids.size() != ids.size() + 2 || s.ids.front() != 2 || s.ids.back() != 3) std::abort();
  if (!std::equal(ids.begin(), ids.end(), s.ids.begin() + 1)) std::abort();
  for (int32_t t : s.types)
    if (t != 0) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Built once and never changed: encode() is const and thread-safe.
  static const Tokenizer gpt2 = make("default", true);
  static const Tokenizer llama3 = make("llama-bpe", true);
  static const Tokenizer qwen2 = make("qwen2", false);
  static const Tokenizer wordpiece = make_wordpiece();
  if (size > 4096) return 0;  // long texts add nothing the short ones do not reach
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const Tokenizer* tok : {&gpt2, &llama3}) {
    for (bool special : {true, false})
      if (tok->decode(checked_encode(*tok, text, special)) != text) std::abort();
  }
  check_wordpiece(wordpiece, text);
  const std::string back = qwen2.decode(checked_encode(qwen2, text, false));
  if (valid_utf8(text)) {
    std::string normal;
    if (!tokenizer::nfc(text, normal)) normal = std::string(text);
    if (back != normal) std::abort();
  }
  return 0;
}
