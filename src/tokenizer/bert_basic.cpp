#include "tokenizer/bert_basic.hpp"

#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>

#include <cstdint>

#include "meadow/error.hpp"
#include "tokenizer/utf8.hpp"

namespace meadow::tokenizer {
namespace {

// Hugging Face `tokenizers` takes general categories from the unicode_categories crate, whose
// tables are Unicode 8.0's: a character assigned later is unassigned (Cn) there, so it is
// neither removed (Cf), stripped (Mn) nor split off (P*). ICU knows a newer version, so
// characters younger than 8.0 are given Cn, and the six whose category changed since 8.0 their
// 8.0 category; ids then follow the reference's on every code point (measured one by one
// against tokenizers 0.20.3: tests/reference/minilm_reference_test.cpp).
int8_t category(char32_t c) {
  switch (c) {
    case 0x166D:   // CANADIAN SYLLABICS CHI SIGN: So since Unicode 12
    case 0x111C9:  // SHARADA SANDHI MARK: Mn since Unicode 10
      return U_OTHER_PUNCTUATION;
    case 0x1734:  // HANUNOO SIGN PAMUDPOD: Mc since Unicode 14
      return U_NON_SPACING_MARK;
    case 0x1885:  // MONGOLIAN LETTER ALI GALI BALUDA, ... THREE BALUDA: Mn since Unicode 9
    case 0x1886:
      return U_OTHER_LETTER;
    case 0xA9BD:  // JAVANESE CONSONANT SIGN KERET: Mn since Unicode 12
      return U_COMBINING_SPACING_MARK;
    default:
      break;
  }
  UVersionInfo age;
  u_charAge(UChar32(c), age);
  if (age[0] > 8) return U_UNASSIGNED;
  return int8_t(u_charType(UChar32(c)));
}

bool ascii_punctuation(char32_t c) {
  return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) ||
         (c >= 0x7B && c <= 0x7E);
}

// Step 5 over the normalized code points, appending words to norm.
class Splitter {
 public:
  Splitter(std::string& norm, std::vector<BertWord>& words, std::vector<ByteSpan>* origin)
      : norm_(norm), words_(words), origin_(origin) {}
  // c came from the bytes `from` of the text (kept only when origins were asked for).
  void add(char32_t c, ByteSpan from) {
    if (bert_is_whitespace(c)) return close();
    if (bert_is_punctuation(c)) {
      close();
      open();
      append(c, from);
      return close();
    }
    if (!in_word_) open();
    append(c, from);
  }
  bool wants_origin() const { return origin_ != nullptr; }
  void close() {
    if (!in_word_) return;
    in_word_ = false;
    word_.end = uint32_t(norm_.size());
    words_.push_back(word_);
  }

 private:
  void open() {
    if (norm_.size() > UINT32_MAX / 2) throw Error("tokenizer: text over 2 GiB");
    in_word_ = true;
    word_ = {uint32_t(norm_.size()), 0, 0};
  }
  void append(char32_t c, ByteSpan from) {
    if (c < 0x80)
      norm_.push_back(char(c));
    else
      norm_ += utf8_encode(c);
    if (origin_) origin_->resize(norm_.size(), from);
    ++word_.chars;
  }
  std::string& norm_;
  std::vector<BertWord>& words_;
  std::vector<ByteSpan>* origin_;
  BertWord word_;
  bool in_word_ = false;
};

void ascii_words(std::string_view text, Splitter& split) {
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = char32_t(static_cast<unsigned char>(text[i]));
    if (c == 0 || bert_is_control(c)) continue;
    split.add(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c, {uint32_t(i), uint32_t(i + 1)});
  }
}

// Where each UTF-16 unit of NFD(cleaned) came from: each character's own full decomposition
// laid end to end has NFD's length (canonical reordering only permutes marks), and
// `tokenizers` aligns the reordered characters by position, as this does.
std::vector<ByteSpan> nfd_origin(const icu::Normalizer2& nfd, const icu::UnicodeString& cleaned,
                                 const std::vector<ByteSpan>& from, int32_t nfd_length) {
  std::vector<ByteSpan> out;
  out.reserve(size_t(nfd_length));
  icu::UnicodeString dec;
  for (int32_t i = 0; i < cleaned.length();) {
    const UChar32 c = cleaned.char32At(i);
    const int32_t n = nfd.getDecomposition(c, dec) ? dec.length() : U16_LENGTH(c);
    out.insert(out.end(), size_t(n), from[size_t(i)]);
    i += U16_LENGTH(c);
  }
  if (int32_t(out.size()) != nfd_length)
    throw Error("tokenizer: NFD changed the length of a text beyond its decompositions");
  return out;
}

void unicode_words(std::string_view text, Splitter& split) {
  // Steps 1 and 2 into UTF-16 for ICU; with origins, where each UTF-16 unit came from.
  icu::UnicodeString cleaned;
  std::vector<ByteSpan> from;
  for (size_t i = 0; i < text.size();) {
    const size_t at = i;
    const char32_t c = utf8_next(text, i).value_or(0xFFFD);
    if (c == 0 || c == 0xFFFD || bert_is_control(c)) continue;
    if (bert_is_whitespace(c)) {
      cleaned.append(UChar32(' '));
    } else if (bert_is_cjk(c)) {
      cleaned.append(UChar32(' ')).append(UChar32(c)).append(UChar32(' '));
    } else {
      cleaned.append(UChar32(c));
    }
    if (split.wants_origin()) from.resize(size_t(cleaned.length()), {uint32_t(at), uint32_t(i)});
  }
  // Step 3.
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* nfd = icu::Normalizer2::getNFDInstance(status);
  if (U_FAILURE(status))
    throw Error(std::string("tokenizer: ICU NFD unavailable: ") + u_errorName(status));
  const icu::UnicodeString decomposed = nfd->normalize(cleaned, status);
  if (U_FAILURE(status)) throw Error(std::string("tokenizer: NFD failed: ") + u_errorName(status));
  const std::vector<ByteSpan> origin = split.wants_origin()
                                           ? nfd_origin(*nfd, cleaned, from, decomposed.length())
                                           : std::vector<ByteSpan>{};
  // Steps 4 and 5. u_tolower is the simple mapping, which equals the full one for every code
  // point but U+0130, and NFD has already turned U+0130 into "I" + a removed U+0307.
  for (int32_t i = 0; i < decomposed.length();) {
    const UChar32 c = decomposed.char32At(i);
    const ByteSpan at = origin.empty() ? ByteSpan{} : origin[size_t(i)];
    i += U16_LENGTH(c);
    if (category(char32_t(c)) == U_NON_SPACING_MARK) continue;
    split.add(char32_t(u_tolower(c)), at);
  }
}

}  // namespace

bool bert_is_control(char32_t c) {
  if (c == '\t' || c == '\n' || c == '\r') return false;
  switch (category(c)) {
    case U_CONTROL_CHAR:
    case U_FORMAT_CHAR:
    case U_PRIVATE_USE_CHAR:
    case U_SURROGATE:
      return true;
    default:
      return false;
  }
}

bool bert_is_whitespace(char32_t c) {
  return c == '\t' || c == '\n' || c == '\r' || u_isUWhiteSpace(UChar32(c));
}

bool bert_is_cjk(char32_t c) {
  // BERT's ranges as Hugging Face `tokenizers` writes them (its fifth range starts at 0x2B920,
  // not 0x2B820 as in Google's original; ids follow the reference).
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
         (c >= 0x20000 && c <= 0x2A6DF) || (c >= 0x2A700 && c <= 0x2B73F) ||
         (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

bool bert_is_punctuation(char32_t c) {
  if (c < 0x80) return ascii_punctuation(c);
  switch (category(c)) {
    case U_DASH_PUNCTUATION:
    case U_START_PUNCTUATION:
    case U_END_PUNCTUATION:
    case U_CONNECTOR_PUNCTUATION:
    case U_OTHER_PUNCTUATION:
    case U_INITIAL_PUNCTUATION:
    case U_FINAL_PUNCTUATION:
      return true;
    default:
      return false;
  }
}

void bert_words(std::string_view text, std::string& norm, std::vector<BertWord>& words,
                std::vector<ByteSpan>* origin) {
  norm.clear();
  if (origin) origin->clear();
  Splitter split(norm, words, origin);
  bool ascii = true;
  for (char c : text) ascii &= static_cast<unsigned char>(c) < 0x80;
  if (ascii)
    ascii_words(text, split);
  else
    unicode_words(text, split);
  split.close();
}

}  // namespace meadow::tokenizer
