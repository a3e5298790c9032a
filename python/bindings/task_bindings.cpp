// Tasks as plain data for the decider, built-in tasks with their C++ perceivers and judges,
// and the episode record a judge reads.
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "meadow/error.hpp"
#include "meadow/tasks.hpp"

namespace nb = nanobind;

namespace meadow::python {
namespace {

char one_letter(const std::string& s) {
  if (s.size() != 1) throw Error("a letter must be one character, got \"" + s + "\"");
  return s[0];
}

std::pair<bool, std::string> verdict_pair(const Verdict& v) {
  return {v.ok, v.text};
}

}  // namespace

namespace {

// What an episode is made of: options, steps (with their decisions), the trace writer, episodes.
void bind_episode_types(nb::module_& m) {
  nb::class_<Option>(m, "Option")
      .def(
          "__init__",
          [](Option* o, const std::string& letter, std::string text, Values action,
             std::string act) {
            new (o) Option{one_letter(letter), std::move(text), std::move(action), std::move(act)};
          },
          nb::arg("letter"), nb::arg("text"), nb::arg("action"), nb::arg("act") = "")
      .def_prop_ro("letter", [](const Option& o) { return std::string(1, o.letter); })
      .def_ro("text", &Option::text)
      .def_ro("action", &Option::action)
      .def_ro("act", &Option::act);

  // What a judge reads of a Python-played step; the decision keeps its status, letter and
  // latency.
  nb::class_<EpisodeStep>(m, "EpisodeStep")
      .def(
          "__init__",
          [](EpisodeStep* s, int64_t step, std::string status, const std::string& letter,
             Values action, Values obs, double reward, double lat_ms,
             const std::vector<std::pair<std::string, double>>& probs,
             const std::vector<std::tuple<std::string, std::string, double>>& conditions) {
            Decision d;
            d.status = std::move(status);
            d.letter = one_letter(letter);
            d.lat_ms = lat_ms;
            for (const auto& [l, p] : probs) d.probs.push_back({one_letter(l), p});
            for (const auto& [l, text, p] : conditions)
              d.conditions.push_back({one_letter(l), text, p});
            new (s) EpisodeStep{step, std::move(d), std::move(action), std::move(obs), reward};
          },
          nb::arg("step"), nb::arg("status"), nb::arg("letter"), nb::arg("action"), nb::arg("obs"),
          nb::arg("reward"), nb::arg("lat_ms") = 0.0,
          nb::arg("probs") = std::vector<std::pair<std::string, double>>{},
          nb::arg("conditions") = std::vector<std::tuple<std::string, std::string, double>>{})
      .def_ro("step", &EpisodeStep::step)
      .def_ro("decision", &EpisodeStep::decision)
      .def_ro("action", &EpisodeStep::action)
      .def_ro("obs", &EpisodeStep::obs)
      .def_ro("reward", &EpisodeStep::reward);

  // The one trace writer (meadow/runner.hpp): the Python runner writes its lines through it.
  nb::class_<TraceWriter>(m, "TraceWriter")
      .def(nb::init<const std::string&>(), nb::arg("path"))
      .def("write", &TraceWriter::write, nb::arg("step"), nb::arg("act"))
      .def("close", &TraceWriter::close)
      .def("discard", &TraceWriter::discard);

  nb::class_<Episode>(m, "Episode")
      .def(
          "__init__",
          [](Episode* e, uint64_t seed, Values reset_obs, std::vector<EpisodeStep> steps,
             double total_reward, bool terminated, bool truncated) {
            new (e) Episode{seed,         std::move(reset_obs), std::move(steps),
                            total_reward, terminated,           truncated};
          },
          nb::arg("seed"), nb::arg("reset_obs"), nb::arg("steps"), nb::arg("total_reward"),
          nb::arg("terminated"), nb::arg("truncated"))
      .def_ro("seed", &Episode::seed)
      .def_ro("reset_obs", &Episode::reset_obs)
      .def_ro("steps", &Episode::steps)
      .def_ro("total_reward", &Episode::total_reward)
      .def_ro("terminated", &Episode::terminated)
      .def_ro("truncated", &Episode::truncated);
}

// Task, the built-in tasks and what the runner asks of them.
void bind_task_class(nb::module_& m) {
  nb::class_<Task>(m, "Task")
      .def(
          "__init__",
          [](Task* t, std::string name, std::string rule, std::vector<Option> options,
             const std::vector<std::pair<std::string, std::string>>& sanity) {
            new (t) Task{};
            t->name = std::move(name);
            t->rule = std::move(rule);
            t->options = std::move(options);
            for (const auto& [status, letter] : sanity)
              t->sanity.push_back({status, one_letter(letter)});
          },
          nb::arg("name"), nb::arg("rule"), nb::arg("options"), nb::arg("sanity"),
          "The decider's view of a task: rule, options and exam (no perceiver).")
      .def_ro("name", &Task::name)
      .def_ro("summary", &Task::summary)
      .def_ro("rule", &Task::rule)
      .def_ro("options", &Task::options)
      .def_prop_ro("sanity",
                   [](const Task& t) {
                     std::vector<std::pair<std::string, std::string>> out;
                     for (const auto& i : t.sanity) out.push_back({i.status, {i.expected}});
                     return out;
                   })
      .def_ro("memory", &Task::memory)
      .def_ro("env_id", &Task::env_id)
      .def_prop_ro("env_kwargs_json", [](const Task& t) { return t.env_kwargs.dump(); })
      .def_ro("max_steps", &Task::max_steps)
      .def_ro("visited", &Task::visited)
      .def_prop_ro("has_perceiver", [](const Task& t) { return bool(t.perceive); })
      .def_prop_ro("has_judge", [](const Task& t) { return bool(t.judge); })
      .def("validate", [](const Task& t) { validate(t); })
      .def("seen", &Task::seen, nb::arg("key"))
      .def("visits", &Task::visits, nb::arg("key"))
      .def("forget", &Task::forget)
      .def(
          "perceive", [](Task& t, const Values& obs) { return perceive(t, obs); }, nb::arg("obs"),
          "The C++ perceiver with working memory: memory key, status sentence, visit recorded.")
      .def(
          "judge",
          [](const Task& t, const Episode& e) -> std::optional<std::pair<bool, std::string>> {
            if (!t.judge) return std::nullopt;
            return verdict_pair(t.judge(e));
          },
          nb::arg("episode"));

  nb::class_<BuiltinTask>(m, "BuiltinTask")
      .def_ro("task", &BuiltinTask::task)
      .def_ro("seeds", &BuiltinTask::seeds)
      .def_ro("target", &BuiltinTask::target)
      .def(
          "judge_all",
          [](const BuiltinTask& bt, const std::vector<Episode>& eps) {
            return verdict_pair(bt.judge_all(eps));
          },
          nb::arg("episodes"));

  m.def("builtin_task_names", &builtin_task_names);
  m.def(
      "builtin_task", [](const std::string& name) { return builtin_task(name); }, nb::arg("name"));
  m.def("percentile", &percentile, nb::arg("values"), nb::arg("q"));
}

}  // namespace

void bind_tasks(nb::module_& m) {
  bind_episode_types(m);
  bind_task_class(m);
}

}  // namespace meadow::python
