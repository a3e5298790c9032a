#include "tokenizer/normalize_nfc.hpp"

#include <unicode/bytestream.h>
#include <unicode/normalizer2.h>
#include <unicode/stringpiece.h>

#include <cstdint>

#include "meadow/error.hpp"

namespace meadow::tokenizer {

bool nfc(std::string_view text, std::string& out) {
  bool ascii = true;
  for (char c : text) ascii &= static_cast<unsigned char>(c) < 0x80;
  if (ascii) return false;

  if (text.size() > INT32_MAX) throw Error("tokenizer: text segment over 2 GiB");
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* n = icu::Normalizer2::getNFCInstance(status);
  if (U_FAILURE(status))
    throw Error(std::string("tokenizer: ICU NFC unavailable: ") + u_errorName(status));
  icu::StringPiece in(text.data(), static_cast<int32_t>(text.size()));
  if (n->isNormalizedUTF8(in, status) && U_SUCCESS(status)) return false;
  status = U_ZERO_ERROR;
  out.clear();
  icu::StringByteSink<std::string> sink(&out, static_cast<int32_t>(text.size()));
  n->normalizeUTF8(0, in, sink, nullptr, status);
  if (U_FAILURE(status)) throw Error(std::string("tokenizer: NFC failed: ") + u_errorName(status));
  return true;
}

}  // namespace meadow::tokenizer
