// route(): cues in the step-0 draft's text (meadow/runtime/generate.hpp).
#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "meadow/runtime/generate.hpp"

namespace meadow::generate {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool has_any(const std::string& text, std::initializer_list<std::string_view> cues) {
  return std::any_of(cues.begin(), cues.end(),
                     [&](std::string_view c) { return text.find(c) != std::string::npos; });
}

}  // namespace

Route route(const decision::Draft& draft, double escalate_below) {
  const std::string t = lower(draft.text);
  Route r;
  const std::pair<const char*, bool> kinds[] = {
      {"code", has_any(t, {"```", "def ", "#include", "function ", "return ", "import ", "=>",
                           "();", "class ", "int main", "print("})},
      {"html", has_any(t, {"<html", "<div", "<p>", "<body", "<span", "</", "<!doctype"})},
      {"sql",
       has_any(t, {"select ", "insert into", "create table", "update ", " where ", "group by"})},
      {"chart", has_any(t, {"chart", "plot", "graph", "histogram", "axis", "matplotlib"})},
  };
  for (const auto& [name, present] : kinds)
    if (present) r.signals.push_back(name);
  const auto has = [&](const char* s) {
    return std::find(r.signals.begin(), r.signals.end(), s) != r.signals.end();
  };
  r.mode = (has("code") || has("html") || has("sql")) ? "code" : has("chart") ? "chart" : "text";
  r.coherence = draft.coherence;
  r.escalate = draft.coherence < escalate_below;
  return r;
}

}  // namespace meadow::generate
