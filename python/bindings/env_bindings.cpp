// Our Gymnasium-faithful environments, stepped from Python. meadow_mind.envs gives them
// Gymnasium's signatures and spaces; this layer moves flat numbers and frames.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nanobind/ndarray.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "frame_array.hpp"
#include "meadow/env.hpp"
#include "meadow/render.hpp"

namespace nb = nanobind;

namespace meadow::python {

void bind_envs(nb::module_& m) {
  nb::class_<Space>(m, "Space")
      .def_prop_ro(
          "kind",
          [](const Space& s) { return s.kind == Space::Kind::Discrete ? "Discrete" : "Box"; })
      .def_ro("n", &Space::n)
      .def_ro("start", &Space::start)
      .def_ro("low", &Space::low)
      .def_ro("high", &Space::high)
      .def_ro("shape", &Space::shape)
      .def_ro("dtype", &Space::dtype)
      .def("contains", &Space::contains, nb::arg("value"))
      .def("describe", &Space::describe);

  nb::class_<Env>(m, "Env")
      .def(
          "reset",
          [](Env& e, std::optional<uint64_t> seed) {
            ResetResult r = e.reset(seed);
            return std::make_pair(std::move(r.obs), std::move(r.info));
          },
          nb::arg("seed") = nb::none())
      .def(
          "step",
          [](Env& e, const Values& action) {
            StepResult r = e.step(action);
            return std::make_tuple(std::move(r.obs), r.reward, r.terminated, r.truncated,
                                   std::move(r.info));
          },
          nb::arg("action"))
      .def_prop_ro("observation_space", &Env::observation_space, nb::rv_policy::reference_internal)
      .def_prop_ro("action_space", &Env::action_space, nb::rv_policy::reference_internal)
      .def_prop_ro("id", &Env::id)
      .def(
          "render", [](const Env& e) { return frame_array(render(e)); },
          "The current picture, an (height, width, 3) uint8 array.");

  m.def(
      "make_env",
      [](const std::string& id, const std::string& kwargs_json) {
        return make(id, nlohmann::json::parse(kwargs_json));
      },
      nb::arg("id"), nb::arg("kwargs_json") = "{}");

  m.def("env_specs", [] {
    // (id, max_episode_steps, reward_threshold, default kwargs as JSON, summary, doc)
    std::vector<std::tuple<std::string, std::optional<int>, std::optional<double>, std::string,
                           std::string, std::string>>
        out;
    for (const auto& s : env_registry())
      out.emplace_back(s.id, s.max_episode_steps, s.reward_threshold, s.default_kwargs.dump(),
                       s.summary, std::string(env_doc(s.id)));
    return out;
  });
}

}  // namespace meadow::python
