// The table of built-in tasks, and their JSON listing.
#include <cmath>
#include <cstdio>

#include "meadow/error.hpp"
#include "tasks/builtin.hpp"

namespace meadow {
namespace {

struct Entry {
  const char* name;
  BuiltinTask (*make)();
};

constexpr Entry kTasks[] = {
    {"cartpole", tasks::make_cartpole_task},
    {"mountaincar", tasks::make_mountaincar_task},
    {"frozenlake", tasks::make_frozenlake_task},
    {"lunarlander", tasks::make_lunarlander_task},
    {"maze", tasks::make_maze_task},
    {"parkour", tasks::make_parkour_task},
    {"shapes", tasks::make_shapes_task},
};

}  // namespace

namespace tasks {
std::string fixed1(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

Verdict six_of_six(const Episode& ep, const std::string& verb, const std::string& things) {
  const int n = int(std::lround(ep.total_reward));
  return Verdict{n == 6, verb + " " + std::to_string(n) + "/6 " + things + " (seed " +
                             std::to_string(ep.seed) + ")"};
}

std::function<Verdict(const std::vector<Episode>&)> six_on_every_seed(const std::string& verb,
                                                                      const std::string& things) {
  return [verb, things](const std::vector<Episode>& eps) {
    size_t ok = 0;
    for (const auto& e : eps) ok += six_of_six(e, verb, things).ok;
    return Verdict{!eps.empty() && ok == eps.size(), "all 6 " + verb + " on " + std::to_string(ok) +
                                                         "/" + std::to_string(eps.size()) +
                                                         " seeds"};
  };
}
}  // namespace tasks

std::vector<std::string> builtin_task_names() {
  std::vector<std::string> out;
  for (const auto& e : kTasks) out.emplace_back(e.name);
  return out;
}

BuiltinTask builtin_task(std::string_view name) {
  for (const auto& e : kTasks)
    if (name == e.name) {
      BuiltinTask bt = e.make();
      validate(bt.task);
      return bt;
    }
  std::string known;
  for (const auto& e : kTasks) known += (known.empty() ? "" : ", ") + std::string(e.name);
  throw Error("unknown task '" + std::string(name) + "'; built-in tasks: " + known);
}

nlohmann::ordered_json task_json(const BuiltinTask& bt) {
  const Task& t = bt.task;
  nlohmann::ordered_json j;
  j["name"] = t.name;
  j["summary"] = t.summary;
  j["env_id"] = t.env_id;
  j["env_kwargs"] = t.env_kwargs;
  j["max_steps"] = t.max_steps;
  j["memory"] = t.memory;
  j["rule"] = t.rule;
  nlohmann::ordered_json opts = nlohmann::ordered_json::array();
  for (const auto& o : t.options)
    opts.push_back({{"letter", std::string(1, o.letter)}, {"text", o.text}, {"action", o.action}});
  j["options"] = opts;
  nlohmann::ordered_json exam = nlohmann::ordered_json::array();
  for (const auto& e : t.sanity)
    exam.push_back({{"status", e.status}, {"expected", std::string(1, e.expected)}});
  j["exam"] = exam;
  j["seeds"] = bt.seeds;
  j["target"] = bt.target;
  return j;
}

}  // namespace meadow
