// NB_MODULE entry: meadow::Error (bad input) surfaces as meadow_mind.MeadowError, a ValueError.
#include <nanobind/nanobind.h>

#include "bindings.hpp"
#include "meadow/error.hpp"

NB_MODULE(_core, m) {
  m.doc() = "meadow-mind's C++ core; use the meadow_mind package, not this module.";
  nanobind::exception<meadow::Error> error(m, "MeadowError", PyExc_ValueError);
  error.attr("__doc__") = "Bad input the core refused (a ValueError): unknown env, model or kwarg.";
  meadow::python::bind_tasks(m);
  meadow::python::bind_task_files(m);
  meadow::python::bind_mind(m);
  meadow::python::bind_envs(m);
  meadow::python::bind_render(m);
  meadow::python::bind_realtime(m);
  meadow::python::bind_cli(m);
}
