#include "reference_reader.hpp"

#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace meadow::testing {
namespace {

std::vector<std::string> sentences(const std::string& rule) {
  std::vector<std::string> out;
  std::string cur;
  for (size_t i = 0; i < rule.size(); ++i) {
    if (rule[i] == '.' && (i + 1 == rule.size() || rule[i + 1] == ' ')) {
      out.push_back(cur);
      cur.clear();
      if (i + 1 < rule.size()) ++i;
    } else {
      cur += rule[i];
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool has_word(const std::string& text, const std::string& word) {
  std::istringstream in(text);
  std::string w;
  while (in >> w)
    if (w == word) return true;
  return false;
}

}  // namespace

ReferenceReader::ReferenceReader(const Task& task) : options_(task.options) {
  static const std::regex choose(R"(^If (.+), choose ([A-Z])$)");
  static const std::regex if_text(R"(^If (.+), (.+)$)");
  static const std::regex otherwise(R"(^Otherwise choose ([A-Z])$)");
  static const std::regex same(R"(the same direction the (\w+) is moving)");
  static const std::regex heading(R"(^Go where the (.+) is heading$)");
  static const std::regex toward(R"(toward the (\w+))");
  for (const std::string& s : sentences(task.rule)) {
    std::smatch m;
    if (std::regex_match(s, m, choose)) {
      conds_.push_back({lower(m[1]), m[2].str()[0]});
    } else if (std::regex_match(s, m, otherwise)) {
      otherwise_ = m[1].str()[0];
    } else if (std::regex_search(s, m, same)) {
      relation_ = Relation::Same, noun_ = m[1];
    } else if (std::regex_match(s, m, heading)) {
      relation_ = Relation::Same, noun_ = m[1];
    } else if (std::regex_search(s, m, toward)) {
      relation_ = Relation::Toward, noun_ = m[1];
    } else if (std::regex_match(s, m, if_text)) {
      bool found = false;
      for (const auto& o : options_)
        if (o.text == m[2].str()) conds_.push_back({lower(m[1]), o.letter}), found = true;
      if (!found) throw std::runtime_error("reader: '" + m[2].str() + "' is no option text");
    } else {
      throw std::runtime_error("reader cannot read the rule sentence: " + s);
    }
  }
}

char ReferenceReader::read(const std::string& status_in) const {
  const std::string status = lower(status_in);
  std::vector<char> hits;
  for (const auto& c : conds_)
    if (status.find(c.text) != std::string::npos) hits.push_back(c.letter);
  if (hits.size() > 1) throw std::runtime_error("reader: several conditions match: " + status);
  if (hits.size() == 1) return hits[0];
  if (relation_ != Relation::None) {
    const std::string verbs = relation_ == Relation::Same
                                  ? "(?:is moving|moves|is heading|is going|drifts)"
                                  : "(?:lies|is)";
    const std::regex where("the " + noun_ + " " + verbs + " (\\w+)");
    std::smatch m;
    if (std::regex_search(status, m, where)) {
      std::vector<char> dirs;
      for (const auto& o : options_)
        if (has_word(lower(o.text), m[1])) dirs.push_back(o.letter);
      if (dirs.size() == 1) return dirs[0];
    }
  }
  if (otherwise_) return *otherwise_;
  throw std::runtime_error("reader: no rule condition matches: " + status);
}

DecideFn reader_decider() {
  // One reader per rule text (std::regex is slow to build; episodes have 1000 steps).
  auto cache = std::make_shared<std::map<std::string, ReferenceReader>>();
  return [cache](Task& task, const Values& obs) {
    std::string key;
    if (task.memory) key = task.mem_key(obs);
    Decided d;
    d.info.status = task.perceive(obs, task);
    if (task.memory) ++task.visited[key];
    auto it = cache->find(task.rule);
    if (it == cache->end()) it = cache->emplace(task.rule, ReferenceReader(task)).first;
    d.info.letter = it->second.read(d.info.status);
    for (const auto& o : task.options)
      d.info.probs.emplace_back(o.letter, o.letter == d.info.letter);
    d.info.margin = 1;
    d.action = task.option(d.info.letter).action;
    return d;
  };
}

}  // namespace meadow::testing
