// Task validation and its small accessors.
#include <set>
#include <string>

#include "meadow/error.hpp"
#include "meadow/task.hpp"

namespace meadow {

int64_t Task::visits(const std::string& key) const {
  if (!memory) return 0;
  const auto it = visited.find(key);
  return it == visited.end() ? 0 : it->second;
}

std::string perceive(Task& task, const Values& obs) {
  if (!task.perceive) throw Error("task " + task.name + ": no perceiver");
  // Checked here too: a task is validated once per decider, and may change after.
  if (task.memory && !task.mem_key)
    throw Error("task " + task.name + ": memory is on but there is no mem_key");
  std::string key;
  if (task.memory) key = task.mem_key(obs);
  // The perceiver sees the visits before this step; then this one is recorded.
  std::string status = task.perceive(obs, task);
  if (task.memory) ++task.visited[key];
  return status;
}

const Option& Task::option(char letter) const {
  for (const auto& o : options)
    if (o.letter == letter) return o;
  throw Error("task " + name + ": '" + std::string(1, letter) + "' is not an option");
}

const std::string& Task::act_text(char letter) const {
  const Option& o = option(letter);
  return o.act.empty() ? o.text : o.act;
}

void validate(const Task& task) {
  const std::string who = "task " + (task.name.empty() ? std::string("(unnamed)") : task.name);
  auto fail = [&](const std::string& why) { throw Error(who + ": " + why); };
  if (task.rule.find_first_not_of(" \t\r\n") == std::string::npos) fail("empty rule");
  if (task.options.empty()) fail("no options");
  std::set<char> letters;
  for (const auto& o : task.options) {
    const std::string l(1, o.letter);
    if (o.letter < 'A' || o.letter > 'Z') fail("option letter '" + l + "' is not one of A..Z");
    if (!letters.insert(o.letter).second) fail("duplicate option letter '" + l + "'");
    if (o.text.find_first_not_of(" \t\r\n") == std::string::npos)
      fail("option " + l + " has no text");
    if (o.action.empty()) fail("option " + l + " has no action");
  }
  for (size_t i = 0; i < task.sanity.size(); ++i) {
    const auto& item = task.sanity[i];
    const std::string n = "exam item " + std::to_string(i + 1);
    if (item.status.find_first_not_of(" \t\r\n") == std::string::npos) fail(n + " is empty");
    if (!letters.count(item.expected))
      fail(n + " expects '" + std::string(1, item.expected) + "', which is not an option");
  }
  if (task.memory && !task.mem_key) fail("memory is on but there is no mem_key");
  if (task.max_steps < 1) fail("max_steps must be >= 1");
}

}  // namespace meadow
