// Escaping of control bytes and invalid UTF-8 for terminals and error texts.
#include "util/printable.hpp"

#include <cstdint>

namespace meadow::util {
namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 (RFC 3629: no overlong forms,
// no surrogates, nothing above U+10FFFF).
size_t utf8_length(std::string_view s, size_t i) {
  const auto at = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  const uint8_t b = at(i);
  size_t n = 0;
  uint8_t lo = 0x80, hi = 0xBF;  // range of the second byte
  if (b >= 0xC2 && b <= 0xDF) {
    n = 2;
  } else if (b >= 0xE0 && b <= 0xEF) {
    n = 3;
    if (b == 0xE0) lo = 0xA0;
    if (b == 0xED) hi = 0x9F;
  } else if (b >= 0xF0 && b <= 0xF4) {
    n = 4;
    if (b == 0xF0) lo = 0x90;
    if (b == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (at(i + 1) < lo || at(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k)
    if ((at(i + k) & 0xC0) != 0x80) return 0;
  return n;
}

void hex_escape(uint8_t b, std::string& out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += "\\x";
  out += kHex[b >> 4];
  out += kHex[b & 15];
}

}  // namespace

std::string printable(std::string_view s, bool keep_newlines) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const auto b = static_cast<uint8_t>(s[i]);
    if (b >= 0x20 && b < 0x7F) {
      out += s[i++];
      continue;
    }
    if (b < 0x80) {  // C0 controls and DEL
      if (b == '\n' && keep_newlines)
        out += '\n';
      else if (b == '\n')
        out += "\\n";
      else if (b == '\r')
        out += "\\r";
      else if (b == '\t')
        out += "\\t";
      else
        hex_escape(b, out);
      ++i;
      continue;
    }
    const size_t n = utf8_length(s, i);
    const bool c1 = n == 2 && b == 0xC2 && static_cast<uint8_t>(s[i + 1]) < 0xA0;
    if (n == 0 || c1) {
      hex_escape(b, out);
      ++i;
      continue;
    }
    out.append(s.substr(i, n));
    i += n;
  }
  return out;
}

std::string quoted(std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes) return "'" + printable(s) + "'";
  size_t cut = max_bytes;
  // Back up over UTF-8 continuation bytes so a character is never split (at most 3).
  for (int k = 0; k < 3 && cut > 0 && (static_cast<uint8_t>(s[cut]) & 0xC0) == 0x80; ++k) --cut;
  return "'" + printable(s.substr(0, cut)) + "...'";
}

}  // namespace meadow::util
