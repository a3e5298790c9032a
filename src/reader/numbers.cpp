#include "reader/numbers.hpp"

#include <unicode/uchar.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

namespace meadow::reader {
namespace {

// The strict UTF-8 decoder's result for one code point, or nullopt (and one byte consumed).
std::optional<char32_t> next_code_point(std::string_view s, size_t& i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  int n = b0 < 0x80 ? 1 : (b0 >> 5) == 0x6 ? 2 : (b0 >> 4) == 0xE ? 3 : (b0 >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + size_t(n) > s.size()) {
    ++i;
    return std::nullopt;
  }
  char32_t c = n == 1 ? b0 : n == 2 ? (b0 & 0x1F) : n == 3 ? (b0 & 0x0F) : (b0 & 0x07);
  for (int k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(s[i + size_t(k)]);
    if ((b & 0xC0) != 0x80) {
      ++i;
      return std::nullopt;
    }
    c = (c << 6) | (b & 0x3F);
  }
  i += size_t(n);
  return c;
}

// Python's str.isspace() (the characters float() strips and turns into spaces).
bool py_space(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 ||
         c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
         c == 0x205F || c == 0x3000;
}

bool lower_equals(std::string_view s, std::string_view word) {
  if (s.size() != word.size()) return false;
  for (size_t i = 0; i < s.size(); ++i)
    if ((s[i] >= 'A' && s[i] <= 'Z' ? char(s[i] - 'A' + 'a') : s[i]) != word[i]) return false;
  return true;
}

// Digits with single underscores between them (Python's rule for numeric literals), appended
// to out without the underscores; at least one digit.
bool digits(std::string_view s, size_t& i, std::string& out) {
  const size_t start = i;
  while (i < s.size()) {
    if (s[i] >= '0' && s[i] <= '9') {
      out.push_back(s[i++]);
    } else if (s[i] == '_' && i > start && i + 1 < s.size() && s[i - 1] != '_' && s[i + 1] >= '0' &&
               s[i + 1] <= '9') {
      ++i;
    } else {
      break;
    }
  }
  return i > start;
}

}  // namespace

std::optional<double> parse_number(std::string_view text) {
  // decide.py's replacements, then float()'s own: each Unicode digit to its ASCII digit, each
  // whitespace character to a space; any other non-ASCII character makes it no number.
  std::string t;
  for (size_t i = 0; i < text.size();) {
    const std::optional<char32_t> c = next_code_point(text, i);
    if (!c) return std::nullopt;
    if (*c == ',' || *c == ' ') continue;
    if (*c == 0x2212) {
      t.push_back('-');
    } else if (py_space(*c)) {
      t.push_back(' ');
    } else if (*c < 0x80) {
      t.push_back(char(*c));
    } else if (u_charType(UChar32(*c)) == U_DECIMAL_DIGIT_NUMBER) {
      t.push_back(char('0' + u_charDigitValue(UChar32(*c))));
    } else {
      return std::nullopt;
    }
  }
  const size_t first = t.find_first_not_of(' '), last = t.find_last_not_of(' ');
  if (first == std::string::npos) return std::nullopt;
  const std::string_view s = std::string_view(t).substr(first, last - first + 1);
  size_t i = 0;
  const bool negative = s[0] == '-';
  if (s[0] == '-' || s[0] == '+') ++i;
  const std::string_view word = s.substr(i);
  if (lower_equals(word, "inf") || lower_equals(word, "infinity"))
    return negative ? -std::numeric_limits<double>::infinity()
                    : std::numeric_limits<double>::infinity();
  if (lower_equals(word, "nan")) return std::numeric_limits<double>::quiet_NaN();
  std::string clean = negative ? "-" : "";
  const bool whole = digits(s, i, clean);
  bool fraction = false;
  if (i < s.size() && s[i] == '.') {
    clean.push_back('.');
    ++i;
    fraction = digits(s, i, clean);
  }
  if (!whole && !fraction) return std::nullopt;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    clean.push_back('e');
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) clean.push_back(s[i++]);
    if (!digits(s, i, clean)) return std::nullopt;
  }
  if (i != s.size()) return std::nullopt;
  double v = 0;
  const auto r = std::from_chars(clean.data(), clean.data() + clean.size(), v);
  // Python gives inf for an overflow and a subnormal or 0 for an underflow, where from_chars
  // reports both as out of range: strtod's value is Python's there (the grammar is checked).
  if (r.ec == std::errc::result_out_of_range) return std::strtod(clean.c_str(), nullptr);
  if (r.ec != std::errc() || r.ptr != clean.data() + clean.size()) return std::nullopt;
  return v;
}

std::optional<bool> compare(Op op, double v, double t1, std::optional<double> t2) {
  switch (op) {
    case Op::In: {
      if (!t2) return std::nullopt;
      // Python's min / max: the first argument unless the second is strictly beyond it.
      const double lo = *t2 < t1 ? *t2 : t1, hi = *t2 > t1 ? *t2 : t1;
      return lo <= v && v <= hi;
    }
    case Op::Gt:
      return v > t1;
    case Op::Ge:
      return v >= t1;
    case Op::Lt:
      return v < t1;
    case Op::Le:
      return v <= t1;
    case Op::None:
      break;
  }
  return std::nullopt;
}

double mix(double p_judge, const std::array<double, kOps>& op_p, std::optional<std::string_view> t1,
           std::optional<std::string_view> t2, std::optional<std::string_view> v) {
  const double p_num = 1 - op_p[0];
  if (p_num < 0.5) return p_judge;
  int best = 1;  // the first most likely comparison, as Python's max over the others
  for (int k = 2; k < kOps; ++k)
    if (op_p[size_t(k)] > op_p[size_t(best)]) best = k;
  auto number = [](std::optional<std::string_view> s) {
    return s && !s->empty() ? parse_number(*s) : std::nullopt;
  };
  const std::optional<double> n1 = number(t1), n2 = number(t2), nv = number(v);
  if (!n1 || !nv) return p_judge;
  const std::optional<bool> c = compare(Op(best), *nv, *n1, n2);
  if (!c) return p_judge;
  return p_num * (*c ? 1.0 : 0.0) + (1 - p_num) * p_judge;
}

}  // namespace meadow::reader
