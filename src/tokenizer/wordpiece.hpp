// WordPiece over a vocabulary in llama.cpp's "phantom space" form (tools/convert_bert.py): a
// piece that starts a word is stored as U+2581 + text, a continuation ("##text" in BERT's own
// vocab.txt) as the bare text. Each word of the basic tokenizer (tokenizer/bert_basic.hpp) is
// split greedily, longest match first, as Hugging Face's WordPiece does: from the start of
// what is left, the longest piece in the vocabulary; if some position has none, or the word
// has more than max_chars code points, the whole word is the unknown token.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "tokenizer/bert_basic.hpp"
#include "tokenizer/string_table.hpp"

namespace meadow::tokenizer {

inline constexpr std::string_view kPhantomSpace = "\xE2\x96\x81";  // U+2581

class WordPiece {
 public:
  // tokens and types stay owned by the caller and must outlive this.
  WordPiece(const StringTable& tokens, const std::vector<int32_t>& types, int32_t unk,
            int32_t max_chars = 100)
      : tokens_(tokens), types_(types), unk_(unk), max_chars_(max_chars) {}

  // Appends the ids of one word (valid UTF-8, `chars` code points long) to out; with
  // `pieces`, also each id's [begin, end) bytes of the word (the whole word for the unknown
  // token).
  void encode_word(std::string_view word, uint32_t chars, std::vector<int32_t>& out,
                   std::vector<ByteSpan>* pieces = nullptr) const;

 private:
  int32_t find(std::string_view text) const;  // a normal piece's id, or -1

  const StringTable& tokens_;
  const std::vector<int32_t>& types_;
  int32_t unk_;
  int32_t max_chars_;
};

}  // namespace meadow::tokenizer
