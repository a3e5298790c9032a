// Small synthetic byte-level vocabularies for unit tests: the 256 byte tokens (GPT-2 table),
// plus whatever merges and added tokens a test appends.
#pragma once

#include <string>
#include <string_view>

#include "meadow/runtime/tokenizer.hpp"
#include "tokenizer/byte_unicode.hpp"

namespace meadow::test {

// Byte-level spelling of raw text (space -> "Ġ", ...).
inline std::string byte_level(std::string_view raw) {
  static const tokenizer::ByteUnicode table;
  std::string out;
  for (char c : raw) out += table.utf8_of_byte[static_cast<unsigned char>(c)];
  return out;
}

inline Vocab byte_vocab(std::string pre = "default") {
  Vocab v;
  v.pre = std::move(pre);
  for (int b = 0; b < 256; ++b)
    v.tokens.push_back(byte_level(std::string(1, static_cast<char>(b))));
  v.types.assign(256, static_cast<int32_t>(TokenType::normal));
  return v;
}

// Appends a merge of two existing raw-text tokens and its result token; returns the result id.
inline int32_t add_merge(Vocab& v, std::string_view left, std::string_view right) {
  v.merges.push_back(byte_level(left) + " " + byte_level(right));
  v.tokens.push_back(byte_level(std::string(left) + std::string(right)));
  v.types.push_back(static_cast<int32_t>(TokenType::normal));
  return static_cast<int32_t>(v.tokens.size() - 1);
}

inline int32_t add_token(Vocab& v, std::string text, TokenType type) {
  v.tokens.push_back(std::move(text));
  v.types.push_back(static_cast<int32_t>(type));
  return static_cast<int32_t>(v.tokens.size() - 1);
}

}  // namespace meadow::test
