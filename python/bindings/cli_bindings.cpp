// `python -m meadow_mind ...` runs the same command line as the meadow-mind executable.
#include <cstdio>
#include <string>
#include <vector>

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "meadow/runtime/cli.hpp"

namespace nb = nanobind;

namespace meadow::python {

void bind_cli(nb::module_& m) {
  m.def(
      "run_cli",
      [](std::vector<std::string> args) {
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        const int code = run_cli(int(args.size()), argv.data());
        std::fflush(nullptr);  // C stdio and Python's sys.stdout share the terminal
        return code;
      },
      nb::arg("argv"), nb::call_guard<nb::gil_scoped_release>(),
      "Runs the meadow-mind command line (argv[0] is the program name); returns the exit code.");
}

}  // namespace meadow::python
