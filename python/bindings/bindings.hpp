// The _core extension module: one function per part of the public C++ API it exposes. The
// Python package (python/meadow_mind/) builds the original package's API on top of these.
#pragma once

#include <nanobind/nanobind.h>

namespace meadow::python {

void bind_tasks(nanobind::module_& m);       // Task, Option, Episode, built-in tasks
void bind_task_files(nanobind::module_& m);  // task files: TaskSpec, read, make, write
void bind_mind(nanobind::module_& m);        // Mind, Decision, ExamResult, models
void bind_envs(nanobind::module_& m);        // Env, Space, the registry
void bind_realtime(
    nanobind::module_& m);  // real-time games: built-in or Python, wall clock or simulated
void bind_render(nanobind::module_& m);  // GIF writer
void bind_cli(nanobind::module_& m);     // run_cli

}  // namespace meadow::python
