// Task files (meadow/task_file.hpp): read, compiled into a task, written back.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "meadow/error.hpp"
#include "meadow/task_file.hpp"

namespace nb = nanobind;

namespace meadow::python {

void bind_task_files(nb::module_& m) {
  nb::class_<TaskSpec>(m, "TaskSpec")
      .def(nb::init<>())
      .def_ro("name", &TaskSpec::name)
      .def_prop_ro("has_perceiver", [](const TaskSpec& s) { return s.perceiver.has_value(); })
      .def_prop_ro("seeds", [](const TaskSpec& s) { return s.seeds; })
      .def_prop_ro("target", [](const TaskSpec& s) { return s.judge.target; })
      .def(
          "with_words",
          [](TaskSpec s, std::string name, std::string summary, std::string rule,
             std::vector<Option> options,
             const std::vector<std::pair<std::string, std::string>>& exam, std::string env_id,
             const std::string& env_kwargs_json, int64_t max_steps) {
            s.name = std::move(name);
            s.summary = std::move(summary);
            s.rule = std::move(rule);
            s.options = std::move(options);
            s.exam.clear();
            for (const auto& [status, letter] : exam) {
              if (letter.size() != 1) throw Error("exam: \"" + letter + "\" is not one letter");
              s.exam.push_back({status, letter[0]});
            }
            s.env_id = std::move(env_id);
            s.env_kwargs = nlohmann::json::parse(env_kwargs_json);
            s.max_steps = max_steps;
            return s;
          },
          nb::arg("name"), nb::arg("summary"), nb::arg("rule"), nb::arg("options"), nb::arg("exam"),
          nb::arg("env_id"), nb::arg("env_kwargs_json"), nb::arg("max_steps"),
          "A copy with these words; the perceiver and judge stay.")
      .def("toml", [](const TaskSpec& s) { return task_spec_toml(s); });

  m.def("read_task_spec", &read_task_spec, nb::arg("path"));
  m.def("parse_task_spec", &parse_task_spec, nb::arg("text"), nb::arg("origin"));
  m.def("make_task", &make_task, nb::arg("spec"));
  m.def("write_task_spec", &write_task_spec, nb::arg("spec"), nb::arg("path"));
}

}  // namespace meadow::python
