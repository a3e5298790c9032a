// The case fold of vocabularies trained folded (GGUF key meadow.tokenizer.fold_case, written by
// train/export_gguf.py): one spelling per word, so a model's lookups never miss a word for
// being capitalised in the rule and not in the situation.
#pragma once

#include <string>
#include <string_view>

namespace meadow::tokenizer {

// Lower-cases every ASCII capital that has an ASCII letter right beside it ("Part" -> "part",
// "AI" -> "ai"); a lone capital such as an option letter or "I" is kept. Byte lengths are
// unchanged and non-ASCII bytes are never touched, so the fold is the same on any split of
// the text at non-letters. Returns false (out untouched) when nothing changes.
bool fold_case(std::string_view text, std::string& out);

}  // namespace meadow::tokenizer
