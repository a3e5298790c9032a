// What a Reading says of itself: its default, its literals in order, and whether it can decide.
#include <string>

#include "meadow/runtime/reader.hpp"

namespace meadow::reader {
namespace {

std::string quoted_list(const std::vector<Span>& spans) {
  std::string out;
  for (size_t i = 0; i < spans.size(); ++i) out += (i ? ", '" : "'") + spans[i].text + "'";
  return out;
}

}  // namespace

const char* join_name(Join j) {
  switch (j) {
    case Join::And:
      return "and";
    case Join::Or:
      return "or";
    case Join::None:
      break;
  }
  return "";
}

std::optional<size_t> Reading::default_index() const {
  if (options.empty()) return std::nullopt;
  size_t best = 0;
  for (size_t i = 1; i < options.size(); ++i)
    if (options[i].p_default > options[best].p_default) best = i;
  if (options[best].p_default >= 0.5) return best;
  return std::nullopt;
}

std::vector<std::string> Reading::literal_texts() const {
  std::vector<std::string> out;
  for (const OptionReading& o : options)
    for (const Clause& c : o.clauses)
      for (const Literal& l : c.literals) out.push_back(l.text);
  return out;
}

std::string Reading::unreadable() const {
  if (unread)
    return "the rule is longer than the reader reads: the words from '" + unread->text +
           "' on were not read (shorten the rule)";
  if (default_index()) return "";
  for (const OptionReading& o : options)
    if (!o.clauses.empty()) return "";
  std::string msg =
      "the reader found no condition for any option and no default in the rule '" + rule + "'";
  if (!unclaimed.empty()) msg += "; words no option claimed: " + quoted_list(unclaimed);
  return msg;
}

std::vector<char> Reading::unreachable() const {
  std::vector<char> out;
  const std::optional<size_t> d = default_index();
  for (size_t i = 0; i < options.size(); ++i)
    if (options[i].clauses.empty() && d != i) out.push_back(options[i].letter);
  return out;
}

}  // namespace meadow::reader
