// The exam (`check`): every sanity item decided; a table of the results.
#include <cstdio>
#include <string>

#include "meadow/error.hpp"
#include "meadow/mind.hpp"
#include "meadow/runtime/reader.hpp"

namespace meadow {
namespace {

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

std::string probs_text(const Decision& d) {
  std::string s;
  for (const auto& [l, p] : d.probs) {
    if (!s.empty()) s += ' ';
    s += l;
    s += fmt("=%.3f", p);
  }
  return s;
}

std::string summary(const Task& task, const ExamResult& r) {
  return "exam " + task.name + ": " + std::to_string(r.n_right) + "/" + std::to_string(r.n_total) +
         " right, " + std::to_string(r.misses.size()) + " missed (at most " +
         std::to_string(r.max_misses) + " allowed): " + (r.ok ? "PASS" : "FAIL");
}

}  // namespace

ExamResult Mind::exam(const Task& task, std::optional<int> max_misses) {
  validate(task);
  if (task.sanity.empty()) throw Error("task " + task.name + ": no exam items");
  ExamResult r;
  r.max_misses = max_misses.value_or(opts_.max_misses);
  if (r.max_misses < 0) throw Error("exam: max_misses must be >= 0");
  r.n_total = int(task.sanity.size());
  if (const reader::Reading* rd = reading(task)) {
    // An option the reader cannot choose is a reading problem, not a miss to count.
    std::string never;
    for (char c : rd->unreachable())
      never +=
          (never.empty() ? "" : ", ") + std::string(1, c) + " (\"" + task.option(c).text + "\")";
    if (!never.empty())
      throw Error("task " + task.name + ": the reader found no condition for " + never +
                  " and it is not the default: reword the rule so that it names each option "
                  "with its condition");
    r.reading = reader::describe(*rd);
  }
  for (const auto& item : task.sanity) {
    Decision d = decide_status(task, item.status);
    if (d.letter == item.expected)
      ++r.n_right;
    else
      r.misses.push_back({item, d});
    r.decisions.push_back(std::move(d));
  }
  r.ok = int(r.misses.size()) <= r.max_misses;
  return r;
}

ExamResult Mind::check(const Task& task, std::optional<int> max_misses) {
  ExamResult r = exam(task, max_misses);
  if (r.ok) return r;
  std::string msg = summary(task, r);
  for (const auto& m : r.misses)
    msg += "\n  miss: \"" + m.item.status + "\" expected " + std::string(1, m.item.expected) +
           ", chose " + std::string(1, m.got.letter) + " (" + probs_text(m.got) + ")";
  throw ExamFailed(msg, std::move(r));
}

std::string exam_table(const Task& task, const ExamResult& r) {
  std::string out;
  if (!r.reading.empty()) out += "how the rule was read:\n" + r.reading;
  out += "  #  exp  got  p(exp)  margin  status\n";
  for (size_t i = 0; i < r.decisions.size() && i < task.sanity.size(); ++i) {
    const auto& d = r.decisions[i];
    const auto& item = task.sanity[i];
    const bool ok = d.letter == item.expected;
    char line[96];
    std::snprintf(line, sizeof line, "%3zu  %c    %c%s   %.3f   %.3f  ", i + 1, item.expected,
                  d.letter, ok ? " " : "!", d.prob(item.expected), d.margin);
    out += line + item.status + "\n";
  }
  return out + summary(task, r) + "\n";
}

}  // namespace meadow
