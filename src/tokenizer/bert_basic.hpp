// BERT's basic tokenizer: text -> the words WordPiece then splits. It is Hugging Face
// `tokenizers`' BertNormalizer { clean_text, handle_chinese_chars, strip_accents, lowercase }
// followed by its BertPreTokenizer, in their order:
//   1. clean: NUL, U+FFFD and "other" characters (general categories Cc, Cf, Co; not tab, LF,
//      CR) are removed; every White_Space character becomes a space;
//   2. each CJK ideograph (BERT's code point ranges) is set apart by spaces;
//   3. NFD, then every nonspacing mark (Mn) removed (the accents);
//   4. lower case, one code point at a time (no context: a final capital sigma becomes σ);
//   5. split at White_Space; each punctuation character (ASCII punctuation, or a P* category)
//      is a word of its own.
// Character properties come from ICU. Invalid UTF-8 bytes count as U+FFFD, so step 1 drops
// them, as Python would after decoding with errors="replace".
//
// Offsets (what a reader needs to cut the rule's own words out of it) follow `tokenizers`'
// alignments: every normalized character comes from one character of the text (a
// decomposition's characters, and the spaces around a CJK ideograph, from the one they were
// made from), positionally through NFD's reordering, as its NormalizedString keeps them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace meadow::tokenizer {

// [begin, end) bytes of a text.
struct ByteSpan {
  uint32_t begin = 0, end = 0;
};

struct BertWord {
  uint32_t begin = 0, end = 0;  // byte range in the normalized text
  uint32_t chars = 0;           // code points
};

// Normalizes `text` into `norm` (cleared first) and appends its words, in order, as ranges of
// norm to `words`. ASCII text never reaches ICU. With `origin`, also fills it (cleared first)
// with one entry per byte of norm: the bytes of `text` that byte's character came from.
void bert_words(std::string_view text, std::string& norm, std::vector<BertWord>& words,
                std::vector<ByteSpan>* origin = nullptr);

// The character classes of the steps above (exposed for tests).
bool bert_is_control(char32_t c);      // removed by step 1
bool bert_is_whitespace(char32_t c);   // a space after step 1, a split in step 5
bool bert_is_cjk(char32_t c);          // step 2
bool bert_is_punctuation(char32_t c);  // step 5

}  // namespace meadow::tokenizer
