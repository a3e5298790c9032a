// Task files: TOML → TaskSpec, every mistake named by file, line, column and field.
#include <cmath>
#include <memory>
#include <set>
#include <string>

#include <toml++/toml.h>

#include "meadow/env.hpp"
#include "meadow/error.hpp"
#include "meadow/task_file.hpp"
#include "tasks/task_file_perceiver.hpp"
#include "util/read_file.hpp"

namespace meadow {
namespace {

// Where an error points: the origin and a node's (or the file's first) position.
struct Place {
  const std::string& origin;

  [[noreturn]] void fail(const toml::source_region& at, const std::string& field,
                         const std::string& why) const {
    std::string where = origin;
    if (at.begin.line > 0)
      where += ":" + std::to_string(at.begin.line) + ":" + std::to_string(at.begin.column);
    throw Error(where + ": " + field + ": " + why);
  }
};

std::string join(const std::set<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// A table's keys must all be known: a misspelt field is an error, never silently ignored.
void known_keys(const Place& p, const toml::table& t, const std::string& field,
                const std::set<std::string>& known) {
  for (auto&& [key, node] : t) {
    const std::string k(key.str());
    if (!known.count(k))
      p.fail(key.source(), field.empty() ? k : field + "." + k,
             "unknown field (known " + (field.empty() ? std::string("at the top") : "in " + field) +
                 ": " + join(known) + ")");
  }
}

const toml::table& table_at(const Place& p, const toml::node& n, const std::string& field) {
  if (const auto* t = n.as_table()) return *t;
  p.fail(n.source(), field, "must be a table");
}

std::string text_at(const Place& p, const toml::node& n, const std::string& field,
                    bool allow_empty = false) {
  const auto* s = n.as_string();
  if (!s) p.fail(n.source(), field, "must be a string");
  if (!allow_empty && s->get().find_first_not_of(" \t\r\n") == std::string::npos)
    p.fail(n.source(), field, "must not be empty");
  return s->get();
}

double number_at(const Place& p, const toml::node& n, const std::string& field) {
  if (const auto* i = n.as_integer()) return double(i->get());
  if (const auto* f = n.as_floating_point()) {
    if (!std::isfinite(f->get())) p.fail(n.source(), field, "must be a finite number");
    return f->get();
  }
  p.fail(n.source(), field, "must be a number");
}

int64_t integer_at(const Place& p, const toml::node& n, const std::string& field, int64_t lo) {
  const auto* i = n.as_integer();
  if (!i) p.fail(n.source(), field, "must be a whole number");
  if (i->get() < lo) p.fail(n.source(), field, "must be at least " + std::to_string(lo));
  return i->get();
}

bool bool_at(const Place& p, const toml::node& n, const std::string& field) {
  const auto* b = n.as_boolean();
  if (!b) p.fail(n.source(), field, "must be true or false");
  return b->get();
}

const toml::array& array_at(const Place& p, const toml::node& n, const std::string& field) {
  if (const auto* a = n.as_array()) return *a;
  p.fail(n.source(), field, "must be a list");
}

char letter_at(const Place& p, const toml::node& n, const std::string& field) {
  const std::string s = text_at(p, n, field);
  if (s.size() != 1 || s[0] < 'A' || s[0] > 'Z')
    p.fail(n.source(), field, "must be one letter A-Z, not \"" + s + "\"");
  return s[0];
}

nlohmann::json json_of(const Place& p, const toml::node& n, const std::string& field) {
  if (const auto* t = n.as_table()) {
    nlohmann::json out = nlohmann::json::object();
    for (auto&& [k, v] : *t)
      out[std::string(k.str())] = json_of(p, v, field + "." + std::string(k.str()));
    return out;
  }
  if (const auto* a = n.as_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (size_t i = 0; i < a->size(); ++i)
      out.push_back(json_of(p, *a->get(i), field + "[" + std::to_string(i) + "]"));
    return out;
  }
  if (const auto* s = n.as_string()) return s->get();
  if (const auto* i = n.as_integer()) return i->get();
  if (const auto* f = n.as_floating_point()) return f->get();
  if (const auto* b = n.as_boolean()) return b->get();
  p.fail(n.source(), field, "dates and times are not environment arguments");
}

Option option_at(const Place& p, const toml::node& n, const std::string& field) {
  const auto& t = table_at(p, n, field);
  known_keys(p, t, field, {"letter", "text", "action", "act"});
  Option o;
  for (const char* k : {"letter", "text", "action"})
    if (!t.contains(k)) p.fail(n.source(), field, std::string("needs `") + k + "`");
  o.letter = letter_at(p, *t.get("letter"), field + ".letter");
  o.text = text_at(p, *t.get("text"), field + ".text");
  const toml::node& a = *t.get("action");
  if (const auto* list = a.as_array()) {
    if (list->empty()) p.fail(a.source(), field + ".action", "must not be an empty list");
    for (size_t i = 0; i < list->size(); ++i)
      o.action.push_back(number_at(p, *list->get(i), field + ".action[" + std::to_string(i) + "]"));
  } else {
    o.action.push_back(number_at(p, a, field + ".action"));
  }
  if (const auto* act = t.get("act")) o.act = text_at(p, *act, field + ".act");
  return o;
}

std::optional<double> bound_at(const Place& p, const toml::table& t, const char* key,
                               const std::string& field) {
  if (const auto* n = t.get(key)) return number_at(p, *n, field + "." + key);
  return std::nullopt;
}

WordSpec word_at(const Place& p, const std::string& name, const toml::node& n,
                 const std::string& field) {
  const auto& t = table_at(p, n, field);
  known_keys(p, t, field, {"of", "buckets"});
  if (!t.contains("of")) p.fail(n.source(), field, "needs `of` (the value whose buckets say it)");
  if (!t.contains("buckets")) p.fail(n.source(), field, "needs `buckets`");
  WordSpec w{name, text_at(p, *t.get("of"), field + ".of"), {}};
  const auto& list = array_at(p, *t.get("buckets"), field + ".buckets");
  if (list.empty()) p.fail(list.source(), field + ".buckets", "must hold at least one bucket");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string bf = field + ".buckets[" + std::to_string(i) + "]";
    const auto& b = table_at(p, *list.get(i), bf);
    known_keys(p, b, bf, {"below", "at_most", "is", "say"});
    if (!b.contains("say")) p.fail(b.source(), bf, "needs `say` (the words of this bucket)");
    WordBucket wb{bound_at(p, b, "below", bf), bound_at(p, b, "at_most", bf),
                  bound_at(p, b, "is", bf), text_at(p, *b.get("say"), bf + ".say", true)};
    if (int(wb.below.has_value()) + wb.at_most.has_value() + wb.is.has_value() > 1)
      p.fail(b.source(), bf, "give one bound: `below`, `at_most` or `is`");
    const bool open = !wb.below && !wb.at_most && !wb.is;
    if (open && i + 1 < list.size())
      p.fail(b.source(), bf, "a bucket without a bound takes every value: it must come last");
    w.buckets.push_back(std::move(wb));
  }
  const WordBucket& last = w.buckets.back();
  if (last.below || last.at_most || last.is) {
    const std::string left = last.below     ? ">= " + tasks::number_text(*last.below)
                             : last.at_most ? "> " + tasks::number_text(*last.at_most)
                                            : "other than the ones named";
    p.fail(list.source(), field + ".buckets",
           "the buckets leave values " + left +
               " uncovered (end with a bucket without `below`/`at_most`/`is`)");
  }
  return w;
}

// The place of a field a FieldError names ("perceiver.words.lean.buckets[1].say"): the field's
// node, else the nearest enclosing one that exists.
toml::source_region place_of(const toml::table& root, std::string field) {
  for (;;) {
    if (const toml::node_view<const toml::node> n = toml::at_path(root, field))
      return n.node()->source();
    const size_t cut = field.find_last_of(".[");
    if (cut == std::string::npos) return {};
    field.resize(cut);
  }
}

PerceiverSpec perceiver_at(const Place& p, const toml::node& n) {
  const std::string field = "perceiver";
  const auto& t = table_at(p, n, field);
  known_keys(p, t, field, {"fields", "values", "words", "sentence"});
  if (!t.contains("fields"))
    p.fail(n.source(), field, "needs `fields` (names of the observation entries)");
  if (!t.contains("sentence")) p.fail(n.source(), field, "needs `sentence`");
  PerceiverSpec out;
  const auto& fields = array_at(p, *t.get("fields"), field + ".fields");
  if (fields.empty()) p.fail(fields.source(), field + ".fields", "must name at least one entry");
  for (size_t i = 0; i < fields.size(); ++i)
    out.fields.push_back(text_at(p, *fields.get(i), field + ".fields[" + std::to_string(i) + "]"));
  if (const auto* v = t.get("values"))
    for (auto&& [k, e] : table_at(p, *v, field + ".values"))
      out.values.push_back(
          {std::string(k.str()), text_at(p, e, field + ".values." + std::string(k.str()))});
  if (const auto* w = t.get("words"))
    for (auto&& [k, e] : table_at(p, *w, field + ".words"))
      out.words.push_back(
          word_at(p, std::string(k.str()), e, field + ".words." + std::string(k.str())));
  out.sentence = text_at(p, *t.get("sentence"), field + ".sentence");
  return out;
}

JudgeSpec judge_at(const Place& p, const toml::node& n) {
  const auto& t = table_at(p, n, "judge");
  known_keys(p, t, "judge",
             {"terminated", "reward_at_least", "steps_at_least", "steps_at_most", "target"});
  JudgeSpec j;
  if (const auto* x = t.get("terminated")) j.terminated = bool_at(p, *x, "judge.terminated");
  if (const auto* x = t.get("reward_at_least"))
    j.reward_at_least = number_at(p, *x, "judge.reward_at_least");
  if (const auto* x = t.get("steps_at_least"))
    j.steps_at_least = integer_at(p, *x, "judge.steps_at_least", 1);
  if (const auto* x = t.get("steps_at_most"))
    j.steps_at_most = integer_at(p, *x, "judge.steps_at_most", 1);
  if (const auto* x = t.get("target")) j.target = text_at(p, *x, "judge.target");
  return j;
}

// The environment exists, takes these kwargs, and its spaces fit the options and the fields.
void check_env(const Place& p, const toml::table& root, const TaskSpec& s) {
  const toml::node& env_node = *root.get("env");
  std::unique_ptr<Env> env;
  try {
    env = make(s.env_id, s.env_kwargs);
  } catch (const Error& e) {
    const toml::node* at = root.get("env_kwargs") ? root.get("env_kwargs") : &env_node;
    p.fail(at->source(), root.get("env_kwargs") ? "env_kwargs" : "env", e.what());
  }
  const Space& act = env->action_space();
  const auto& options = *root.get_as<toml::array>("options");
  for (size_t i = 0; i < s.options.size(); ++i)
    if (!act.contains(s.options[i].action))
      p.fail(options.get(i)->source(), "options[" + std::to_string(i) + "].action",
             "not an action of " + s.env_id + " (its action space is " + act.describe() + ")");
  if (!s.perceiver) return;
  const Space& obs = env->observation_space();
  size_t n = 1;
  if (obs.kind == Space::Kind::Box)
    for (const int64_t d : obs.shape) n *= size_t(d);
  if (s.perceiver->fields.size() != n)
    p.fail(root.get("perceiver")->as_table()->get("fields")->source(), "perceiver.fields",
           "names " + std::to_string(s.perceiver->fields.size()) + " entries; " + s.env_id +
               "'s observation has " + std::to_string(n) + " (" + obs.describe() + ")");
}

}  // namespace

TaskSpec parse_task_spec(std::string_view text, const std::string& origin) {
  const Place p{origin};
  toml::table root;
  try {
    root = toml::parse(text, origin);
  } catch (const toml::parse_error& e) {
    p.fail(e.source(), "TOML", std::string(e.description()));
  }
  known_keys(p, root, "",
             {"name", "summary", "rule", "options", "exam", "env", "env_kwargs", "max_steps",
              "seeds", "perceiver", "judge"});
  const toml::source_region top{};
  for (const char* k : {"name", "rule", "options"})
    if (!root.contains(k)) p.fail(top, k, "missing (a task file needs name, rule and options)");

  TaskSpec s;
  s.name = text_at(p, *root.get("name"), "name");
  if (const auto* x = root.get("summary")) s.summary = text_at(p, *x, "summary", true);
  s.rule = text_at(p, *root.get("rule"), "rule");
  const auto& options = array_at(p, *root.get("options"), "options");
  if (options.empty()) p.fail(options.source(), "options", "must hold at least one option");
  std::set<char> letters;
  for (size_t i = 0; i < options.size(); ++i) {
    const std::string f = "options[" + std::to_string(i) + "]";
    Option o = option_at(p, *options.get(i), f);
    if (!letters.insert(o.letter).second)
      p.fail(options.get(i)->source(), f + ".letter",
             std::string("letter ") + o.letter + " appears twice");
    s.options.push_back(std::move(o));
  }
  if (const auto* x = root.get("exam")) {
    const auto& exam = array_at(p, *x, "exam");
    for (size_t i = 0; i < exam.size(); ++i) {
      const std::string f = "exam[" + std::to_string(i) + "]";
      const auto& t = table_at(p, *exam.get(i), f);
      known_keys(p, t, f, {"status", "expect"});
      if (!t.contains("status") || !t.contains("expect"))
        p.fail(t.source(), f, "needs `status` and `expect` (the letter the rule demands)");
      ExamItem item{text_at(p, *t.get("status"), f + ".status"),
                    letter_at(p, *t.get("expect"), f + ".expect")};
      if (!letters.count(item.expected))
        p.fail(t.get("expect")->source(), f + ".expect",
               std::string(1, item.expected) + " is not an option's letter");
      s.exam.push_back(std::move(item));
    }
  }
  if (const auto* x = root.get("env")) s.env_id = text_at(p, *x, "env");
  if (const auto* x = root.get("env_kwargs")) {
    table_at(p, *x, "env_kwargs");
    s.env_kwargs = json_of(p, *x, "env_kwargs");
  }
  if (const auto* x = root.get("max_steps")) s.max_steps = integer_at(p, *x, "max_steps", 1);
  if (const auto* x = root.get("seeds")) {
    const auto& seeds = array_at(p, *x, "seeds");
    if (seeds.empty()) p.fail(seeds.source(), "seeds", "must name at least one seed");
    s.seeds.clear();
    for (size_t i = 0; i < seeds.size(); ++i)
      s.seeds.push_back(
          uint64_t(integer_at(p, *seeds.get(i), "seeds[" + std::to_string(i) + "]", 0)));
  }
  if (const auto* x = root.get("perceiver")) {
    s.perceiver = perceiver_at(p, *x);
    try {
      tasks::compile_perceiver(*s.perceiver);
    } catch (const tasks::FieldError& e) {
      p.fail(place_of(root, e.field), e.field, e.why);
    }
  }
  if (const auto* x = root.get("judge")) s.judge = judge_at(p, *x);
  if (s.perceiver && s.env_id.empty())
    p.fail(root.get("perceiver")->source(), "env",
           "a task with a perceiver needs `env` (the environment id)");
  if (!s.env_id.empty()) check_env(p, root, s);
  return s;
}

TaskSpec read_task_spec(const std::string& path) {
  return parse_task_spec(util::read_file(path, size_t(4) << 20), path);
}

}  // namespace meadow
