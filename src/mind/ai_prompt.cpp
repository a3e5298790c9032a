// The guide printed by `meadow-mind ai-prompt` and returned by Python's ai_prompt(): one text,
// src/mind/agent_guide.md, with blocks for one language only ("::: cpp" ... ":::").
#include <string>
#include <string_view>

#include "meadow/error.hpp"
#include "meadow/mind.hpp"
#include "mind/mind_files.hpp"

namespace meadow {
namespace {

// The guide for `language`: shared lines, and the lines of that language's blocks. The file's
// leading HTML comment (a note for maintainers) is not part of it.
std::string select_language(std::string_view text, std::string_view language) {
  if (const size_t end = text.find("-->\n"); text.starts_with("<!--") && end != text.npos)
    text.remove_prefix(end + 4);
  std::string out;
  std::string_view block;  // the open block's language; empty outside blocks
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl == text.npos ? text.size() : nl + 1);
    text.remove_prefix(line.size());
    const std::string_view bare = line.substr(0, line.find_last_not_of('\n') + 1);
    if (bare.starts_with(":::")) {
      block = bare.size() > 4 ? bare.substr(4) : std::string_view();
      continue;
    }
    if (block.empty() || block == language) out += line;
  }
  return out;
}

}  // namespace

std::string ai_prompt(std::string_view language) {
  if (language != "cpp" && language != "python")
    throw Error("ai-prompt: no guide for '" + std::string(language) + "' (cpp or python)");
  const util::EmbeddedFile* f = util::find_embedded(mind::mind_files(), "agent_guide.md");
  if (f == nullptr) throw Error("ai-prompt: the guide is not in this build");
  return select_language(f->bytes, language);
}

}  // namespace meadow
