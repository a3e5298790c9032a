// The prompt contract (meadow/runtime/prompt_contract.hpp): models/prompt-contract.json compiled
// in, and a model's own copy read from its GGUF metadata.
#include "meadow/runtime/prompt_contract.hpp"

#include <nlohmann/json.hpp>

#include "decision/decision_files.hpp"
#include "meadow/error.hpp"

namespace meadow {
namespace {

// Fails unless `layout` holds each of `fields` (as "{name}") and no other {name}.
void check_layout(std::string_view key, std::string_view layout,
                  std::initializer_list<std::string_view> fields) {
  for (std::string_view f : fields)
    if (layout.find("{" + std::string(f) + "}") == layout.npos)
      throw Error("prompt contract: " + std::string(key) + " has no {" + std::string(f) + "}");
  for (size_t at = layout.find('{'); at != layout.npos; at = layout.find('{', at + 1)) {
    const size_t end = layout.find('}', at);
    if (end == layout.npos) break;
    const std::string_view name = layout.substr(at + 1, end - at - 1);
    bool known = false;
    for (std::string_view f : fields) known = known || name == f;
    if (!known)
      throw Error("prompt contract: " + std::string(key) + " names {" + std::string(name) +
                  "}, which it does not fill");
  }
}

void check_contract(const PromptContract& c) {
  check_layout(kPromptPrefixKey, c.prefix, {"rule", "options"});
  check_layout(kPromptOptionKey, c.option, {"letter", "text"});
  check_layout(kPromptSuffixKey, c.suffix, {"situation"});
}

PromptContract parse_default() {
  const util::EmbeddedFile* f =
      util::find_embedded(decision::decision_files(), "prompt-contract.json");
  if (f == nullptr) throw Error("prompt contract: not compiled into this build");
  const nlohmann::json j = nlohmann::json::parse(f->bytes);
  PromptContract c{j.at("system").get<std::string>(), j.at("prefix").get<std::string>(),
                   j.at("option").get<std::string>(), j.at("suffix").get<std::string>()};
  check_contract(c);
  return c;
}

}  // namespace

const PromptContract& default_prompt_contract() {
  static const PromptContract contract = parse_default();  // immutable once made
  return contract;
}

PromptContract prompt_contract(const gguf::File& file) {
  const PromptContract& d = default_prompt_contract();
  PromptContract c{
      file.get_string(kPromptSystemKey, d.system), file.get_string(kPromptPrefixKey, d.prefix),
      file.get_string(kPromptOptionKey, d.option), file.get_string(kPromptSuffixKey, d.suffix)};
  check_contract(c);
  return c;
}

std::string fill_layout(
    std::string_view layout,
    std::initializer_list<std::pair<std::string_view, std::string_view>> fields) {
  std::string out;
  out.reserve(layout.size() + 64);
  size_t at = 0;
  while (at < layout.size()) {
    const size_t open = layout.find('{', at);
    if (open == layout.npos) break;
    const size_t close = layout.find('}', open);
    if (close == layout.npos) break;
    const std::string_view name = layout.substr(open + 1, close - open - 1);
    const std::string_view* value = nullptr;
    for (const auto& [k, v] : fields)
      if (k == name) value = &v;
    if (value == nullptr)
      throw Error("prompt contract: {" + std::string(name) + "} is not a field of the layout");
    out.append(layout.substr(at, open - at)).append(*value);
    at = close + 1;
  }
  out.append(layout.substr(at));
  return out;
}

}  // namespace meadow
