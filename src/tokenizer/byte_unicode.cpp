#include "tokenizer/byte_unicode.hpp"

#include "tokenizer/utf8.hpp"

namespace meadow::tokenizer {

ByteUnicode::ByteUnicode() {
  byte_of_cp.fill(-1);
  // Printable Latin-1 bytes keep their own code point; the others are numbered from 256 in
  // byte order (GPT-2's bytes_to_unicode).
  int next = 256;
  for (int b = 0; b < 256; ++b) {
    bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
    int cp = printable ? b : next++;
    utf8_of_byte[b] = utf8_encode(static_cast<char32_t>(cp));
    byte_of_cp[cp] = b;
  }
}

std::optional<std::string> ByteUnicode::decode(std::string_view text) const {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    auto cp = utf8_next(text, i);
    if (!cp || *cp >= byte_of_cp.size() || byte_of_cp[*cp] < 0) return std::nullopt;
    out.push_back(static_cast<char>(byte_of_cp[*cp]));
  }
  return out;
}

}  // namespace meadow::tokenizer
