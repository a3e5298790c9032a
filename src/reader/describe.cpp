// A reading as text: what `check` prints before its exam and `decide` after its letter.
#include <cstdio>
#include <string>

#include "meadow/runtime/reader.hpp"

namespace meadow::reader {
namespace {

std::string two_places(double p) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f", p);
  return b;
}

// Below this a tag or a link is a coin flip the user should see.
constexpr double kSure = 0.5;

}  // namespace

std::string clause_text(const Clause& c) {
  std::string out;
  for (size_t k = 0; k < c.literals.size(); ++k) {
    if (k) out += c.join == Join::Or ? " or " : " and ";
    out += "\"" + c.literals[k].text + "\"";
  }
  return out;
}

std::vector<std::string> Reading::unsure() const {
  std::vector<std::string> out;
  for (const OptionReading& o : options)
    for (const Clause& c : o.clauses) {
      if (c.link_p < kSure)
        out.push_back("'" + c.literals.front().words.text + "' went to " + o.letter +
                      " with only " + two_places(c.link_p) + " of the link");
      for (const Literal& l : c.literals)
        if (l.tag_p < kSure)
          out.push_back("'" + l.words.text + "': its words were tagged with only " +
                        two_places(l.tag_p));
    }
  return out;
}

std::string describe(const Reading& r, const Decision* d) {
  std::string out;
  const std::optional<size_t> def = r.default_index();
  size_t lit = 0;
  for (size_t i = 0; i < r.options.size(); ++i) {
    const OptionReading& o = r.options[i];
    std::string conds;
    for (const Clause& c : o.clauses) {
      if (!conds.empty()) conds += " | ";
      for (size_t k = 0; k < c.literals.size(); ++k, ++lit) {
        if (k) conds += c.join == Join::Or ? " or " : " and ";
        conds += "\"" + c.literals[k].text + "\"";
        if (d && lit < d->literal_p.size()) conds += " " + two_places(d->literal_p[lit]);
      }
    }
    std::string line = std::string("  ") + o.letter + " \"" + o.text + "\"";
    if (!conds.empty()) line += " if " + conds;
    if (def == i) line += conds.empty() ? " by default" : "; the default";
    if (o.clauses.empty() && def != i) line += " (never: no condition names it)";
    out += line + "\n";
  }
  if (!r.unclaimed.empty()) {
    out += "  words no option claimed:";
    for (size_t k = 0; k < r.unclaimed.size(); ++k)
      out += (k ? ", '" : " '") + r.unclaimed[k].text + "'";
    out += "\n";
  }
  for (const std::string& u : r.unsure()) out += "  unsure: " + u + "\n";
  if (r.unread) out += "  not read (too long): '" + r.unread->text + "'\n";
  return out;
}

}  // namespace meadow::reader
