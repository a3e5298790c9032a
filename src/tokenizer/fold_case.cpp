#include "tokenizer/fold_case.hpp"

namespace meadow::tokenizer {
namespace {

bool ascii_letter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool upper(char c) {
  return c >= 'A' && c <= 'Z';
}

}  // namespace

bool fold_case(std::string_view text, std::string& out) {
  bool changed = false;
  for (size_t i = 0; i < text.size(); ++i) {
    if (!upper(text[i])) continue;
    const bool beside_letter =
        (i > 0 && ascii_letter(text[i - 1])) || (i + 1 < text.size() && ascii_letter(text[i + 1]));
    if (!beside_letter) continue;
    if (!changed) out.assign(text);
    changed = true;
    out[i] = static_cast<char>(text[i] - 'A' + 'a');
  }
  return changed;
}

}  // namespace meadow::tokenizer
