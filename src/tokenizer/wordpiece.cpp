#include "tokenizer/wordpiece.hpp"

#include <string>

#include "meadow/runtime/tokenizer.hpp"

namespace meadow::tokenizer {

int32_t WordPiece::find(std::string_view text) const {
  const auto id = tokens_.find(text);
  // Special tokens are kept verbatim by the converter; they are never pieces of a word.
  if (!id || types_[size_t(*id)] == int32_t(TokenType::control)) return -1;
  return *id;
}

void WordPiece::encode_word(std::string_view word, uint32_t chars, std::vector<int32_t>& out,
                            std::vector<ByteSpan>* pieces) const {
  if (word.empty()) return;
  const size_t first_piece = pieces ? pieces->size() : 0;
  auto unknown = [&] {
    out.push_back(unk_);
    if (pieces) pieces->push_back({0, uint32_t(word.size())});
  };
  if (chars > uint32_t(max_chars_)) return unknown();
  // The word with its phantom space in front: a word-initial candidate is a prefix of it, a
  // continuation a substring of the word itself, so no candidate is ever copied.
  thread_local std::string spaced;
  spaced.assign(kPhantomSpace).append(word);
  const size_t first = out.size();
  size_t start = 0;
  while (start < word.size()) {
    size_t end = word.size();
    int32_t id = -1;
    while (end > start) {
      if (start == 0) {
        id = find(std::string_view(spaced).substr(0, kPhantomSpace.size() + end));
      } else if (!word.substr(start).starts_with(kPhantomSpace)) {
        // (A continuation that starts with U+2581 would find a word-initial piece's phantom
        // form: "##\u2581b" is no token where "b" is one.)
        id = find(word.substr(start, end - start));
      }
      if (id >= 0) break;
      do --end;  // back over one code point (and its continuation bytes)
      while (end > start && (static_cast<unsigned char>(word[end]) & 0xC0) == 0x80);
    }
    if (id < 0) {
      out.resize(first);
      if (pieces) pieces->resize(first_piece);
      return unknown();
    }
    out.push_back(id);
    if (pieces) pieces->push_back({uint32_t(start), uint32_t(end)});
    start = end;
  }
}

}  // namespace meadow::tokenizer
