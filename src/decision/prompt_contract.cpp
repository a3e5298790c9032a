// The prompt contract (meadow/runtime/prompt_contract.hpp): models/prompt-contract.json compiled
// in, and a model's own copy read from its GGUF metadata.
#include "meadow/runtime/prompt_contract.hpp"

#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>

#include "decision/decision_files.hpp"
#include "meadow/error.hpp"

namespace meadow {
namespace {

// A "{name}" of a layout: where its braces are (open = npos: there is none).
struct Field {
  size_t open = std::string_view::npos, close = 0;
  std::string_view name;
};

// The first field of `layout` at or after `from`.
Field next_field(std::string_view layout, size_t from) {
  const size_t open = layout.find('{', from);
  const size_t close = open == layout.npos ? open : layout.find('}', open);
  if (close == layout.npos) return {};
  return {open, close, layout.substr(open + 1, close - open - 1)};
}

// Fails unless `layout` holds each of `fields` (as "{name}") and no other {name}.
void check_layout(std::string_view key, std::string_view layout,
                  std::initializer_list<std::string_view> fields) {
  for (std::string_view f : fields)
    if (layout.find("{" + std::string(f) + "}") == layout.npos)
      throw Error("prompt contract: " + std::string(key) + " has no {" + std::string(f) + "}");
  for (Field f = next_field(layout, 0); f.open != layout.npos; f = next_field(layout, f.close + 1))
    if (std::find(fields.begin(), fields.end(), f.name) == fields.end())
      throw Error("prompt contract: " + std::string(key) + " names {" + std::string(f.name) +
                  "}, which it does not fill");
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
  for (Field f = next_field(layout, 0); f.open != layout.npos; f = next_field(layout, at)) {
    const std::string_view* value = nullptr;
    for (const auto& [k, v] : fields)
      if (k == f.name) value = &v;
    if (value == nullptr)
      throw Error("prompt contract: {" + std::string(f.name) + "} is not a field of the layout");
    out.append(layout.substr(at, f.open - at)).append(*value);
    at = f.close + 1;
  }
  out.append(layout.substr(at));
  return out;
}

}  // namespace meadow
