// TaskSpec → a task file in the order a person reads it (words, exam, environment,
// perceiver, judge); toml++ quotes the strings and numbers.
#include <cmath>
#include <sstream>
#include <string>

#include <toml++/toml.h>

#include "meadow/error.hpp"
#include "meadow/task_file.hpp"
#include "tasks/task_file_perceiver.hpp"
#include "util/atomic_file.hpp"

namespace meadow {
namespace {

std::string quoted(const std::string& s) {
  std::ostringstream os;
  os << toml::value<std::string>(s);
  return os.str();
}

// A name as a TOML key: bare when it can be, else quoted.
std::string key(const std::string& k) {
  const bool bare = !k.empty() && k.find_first_not_of(
                                      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklm"
                                      "nopqrstuvwxyz0123456789_-") == std::string::npos;
  return bare ? k : quoted(k);
}

std::string inline_json(const nlohmann::json& j, const std::string& field) {
  switch (j.type()) {
    case nlohmann::json::value_t::object: {
      std::string out = "{ ";
      bool first = true;
      for (const auto& [k, v] : j.items()) {
        out += (first ? "" : ", ") + key(k) + " = " + inline_json(v, field + "." + k);
        first = false;
      }
      return out + (first ? "}" : " }");
    }
    case nlohmann::json::value_t::array: {
      std::string out = "[";
      for (size_t i = 0; i < j.size(); ++i) out += (i ? ", " : "") + inline_json(j[i], field);
      return out + "]";
    }
    case nlohmann::json::value_t::string:
      return quoted(j.get<std::string>());
    case nlohmann::json::value_t::boolean:
      return j.get<bool>() ? "true" : "false";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
      return j.dump();
    case nlohmann::json::value_t::number_float:
      return tasks::number_text(j.get<double>());
    default:
      throw Error(field + ": TOML has no null; leave the argument out instead");
  }
}

}  // namespace

std::string task_spec_toml(const TaskSpec& s) {
  std::ostringstream o;
  o << "name = " << quoted(s.name) << "\n";
  if (!s.summary.empty()) o << "summary = " << quoted(s.summary) << "\n";
  o << "rule = " << quoted(s.rule) << "\n";
  if (!s.env_id.empty()) o << "env = " << quoted(s.env_id) << "\n";
  o << "max_steps = " << s.max_steps << "\n";
  o << "seeds = [";
  for (size_t i = 0; i < s.seeds.size(); ++i) o << (i ? ", " : "") << s.seeds[i];
  o << "]\n";
  if (!s.env_kwargs.empty())
    o << "env_kwargs = " << inline_json(s.env_kwargs, "env_kwargs") << "\n";
  // The exam before [[options]]: a key after an array-of-tables header belongs to its last table.
  if (!s.exam.empty()) {
    o << "\nexam = [\n";
    for (const auto& item : s.exam)
      o << "  { status = " << quoted(item.status) << ", expect = \"" << item.expected << "\" },\n";
    o << "]\n";
  }
  for (const auto& opt : s.options) {
    o << "\n[[options]]\nletter = \"" << opt.letter << "\"\ntext = " << quoted(opt.text) << "\n";
    if (opt.action.size() == 1) {
      o << "action = " << tasks::number_text(opt.action[0]) << "\n";
    } else {
      o << "action = [";
      for (size_t i = 0; i < opt.action.size(); ++i)
        o << (i ? ", " : "") << tasks::number_text(opt.action[i]);
      o << "]\n";
    }
    if (!opt.act.empty()) o << "act = " << quoted(opt.act) << "\n";
  }
  if (s.perceiver) {
    const PerceiverSpec& p = *s.perceiver;
    o << "\n[perceiver]\nfields = [";
    for (size_t i = 0; i < p.fields.size(); ++i) o << (i ? ", " : "") << quoted(p.fields[i]);
    o << "]\nsentence = " << quoted(p.sentence) << "\n";
    if (!p.values.empty()) {
      o << "\n[perceiver.values]\n";
      for (const auto& [name, expr] : p.values) o << key(name) << " = " << quoted(expr) << "\n";
    }
    for (const auto& w : p.words) {
      o << "\n[perceiver.words." << key(w.name) << "]\nof = " << quoted(w.of) << "\nbuckets = [\n";
      for (const auto& b : w.buckets) {
        o << "  { ";
        if (b.below) o << "below = " << tasks::number_text(*b.below) << ", ";
        if (b.at_most) o << "at_most = " << tasks::number_text(*b.at_most) << ", ";
        if (b.is) o << "is = " << tasks::number_text(*b.is) << ", ";
        o << "say = " << quoted(b.say) << " },\n";
      }
      o << "]\n";
    }
  }
  const JudgeSpec& j = s.judge;
  if (j.has_conditions() || !j.target.empty()) {
    o << "\n[judge]\n";
    if (j.terminated) o << "terminated = " << (*j.terminated ? "true" : "false") << "\n";
    if (j.reward_at_least)
      o << "reward_at_least = " << tasks::number_text(*j.reward_at_least) << "\n";
    if (j.steps_at_least) o << "steps_at_least = " << *j.steps_at_least << "\n";
    if (j.steps_at_most) o << "steps_at_most = " << *j.steps_at_most << "\n";
    if (!j.target.empty()) o << "target = " << quoted(j.target) << "\n";
  }
  return o.str();
}

void write_task_spec(const TaskSpec& spec, const std::string& path) {
  const std::string text = task_spec_toml(spec);
  util::AtomicFile f(path);
  if (std::fwrite(text.data(), 1, text.size(), f.stream()) != text.size())
    throw Error("cannot write " + path + ": the disk refused the bytes");
  f.commit();
}

}  // namespace meadow
