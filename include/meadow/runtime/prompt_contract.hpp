// The prompt contract (docs/prompt-contract.md): the system message and the user message's
// layout a decision model was trained on. Its one definition is models/prompt-contract.json:
// the trainers read it, their exporters write it into the model's GGUF as meadow.prompt.*
// strings (as llama.cpp's tokenizer.chat_template travels with a model), and the runtime reads
// it back from there. A model trained elsewhere has no such keys; the runtime then uses its
// compiled-in copy of the file.
#pragma once

#include <string>
#include <string_view>

#include "meadow/runtime/gguf.hpp"

namespace meadow {

struct PromptContract {
  std::string system;  // the system message ("" sends none)
  std::string prefix;  // the rule and the options: holds {rule} and {options}
  std::string option;  // one option line: holds {letter} and {text}
  std::string suffix;  // the situation: holds {situation}
};

// The GGUF metadata keys of the four fields.
inline constexpr const char* kPromptSystemKey = "meadow.prompt.system";
inline constexpr const char* kPromptPrefixKey = "meadow.prompt.prefix";
inline constexpr const char* kPromptOptionKey = "meadow.prompt.option";
inline constexpr const char* kPromptSuffixKey = "meadow.prompt.suffix";

// models/prompt-contract.json as compiled in.
const PromptContract& default_prompt_contract();

// The model's contract: each meadow.prompt.* key it has, the default for each it lacks. Throws
// Error naming the key when one is not a string or a layout lacks one of its fields.
PromptContract prompt_contract(const gguf::File& file);

// `layout` with each {name} replaced by its value, in one pass (a value's own braces stay as
// they are). Throws Error on a {name} not among `fields`.
std::string fill_layout(
    std::string_view layout,
    std::initializer_list<std::pair<std::string_view, std::string_view>> fields);

}  // namespace meadow
