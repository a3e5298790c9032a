// Unicode NFC (ICU), applied by vocabularies whose tokenizer.json declares an NFC normalizer.
#pragma once

#include <string>
#include <string_view>

namespace meadow::tokenizer {

// NFC of valid UTF-8 text into `out`; returns false (out untouched) when the text is already
// NFC, which is decided without ICU for ASCII.
bool nfc(std::string_view text, std::string& out);

}  // namespace meadow::tokenizer
