// GPT-2's reversible byte <-> unicode table: byte-level BPE vocabularies store every byte as a
// printable code point (e.g. space -> U+0120 'Ġ'), so token texts never contain raw bytes.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace meadow::tokenizer {

struct ByteUnicode {
  std::array<std::string, 256> utf8_of_byte;  // byte -> UTF-8 of its code point
  std::array<int32_t, 512> byte_of_cp;        // code point (< 512) -> byte, or -1

  ByteUnicode();
  // The bytes a byte-level token text stands for; nullopt if some code point is not in the
  // table (the token is not byte-level text, e.g. an added token).
  std::optional<std::string> decode(std::string_view token_text) const;
};

}  // namespace meadow::tokenizer
