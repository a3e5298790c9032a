// Real-time play from Python (meadow/realtime.hpp): the built-in games, or a Python game,
// against the wall clock or in simulated time. The GIL is released while the runner plays;
// the game's and the perceiver's Python code take it back for each call.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include <nanobind/stl/function.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "frame_array.hpp"
#include "meadow/error.hpp"
#include "meadow/realtime.hpp"

namespace nb = nanobind;

namespace meadow::python {
namespace {

// A Python game (meadow_mind.realtime's adapter of it) as a world: each call takes the GIL.
// Its methods return plain values: reset → list of floats, advance/act → (reward, terminated),
// challenge → int, observe → list of floats, render → an (h, w, 3) uint8 array or None.
class PythonWorld final : public RealtimeWorld {
 public:
  explicit PythonWorld(nb::object game) : game_(std::move(game)) {}

  Values reset(uint64_t seed) override {
    nb::gil_scoped_acquire gil;
    return nb::cast<Values>(game_.attr("reset")(seed));
  }
  double clock() const override {
    nb::gil_scoped_acquire gil;
    return nb::cast<double>(game_.attr("clock")());
  }
  StepResult advance(double seconds) override {
    nb::gil_scoped_acquire gil;
    return step_of(game_.attr("advance")(seconds));
  }
  StepResult act(const Values& action) override {
    nb::gil_scoped_acquire gil;
    return step_of(game_.attr("act")(action));
  }
  int64_t challenge() const override {
    nb::gil_scoped_acquire gil;
    return nb::cast<int64_t>(game_.attr("challenge")());
  }
  Values observe() const override {
    nb::gil_scoped_acquire gil;
    return nb::cast<Values>(game_.attr("observe")());
  }
  std::function<Frame()> picture() const override {
    nb::gil_scoped_acquire gil;
    nb::object img = game_.attr("render")();
    if (img.is_none()) return {};
    return [f = frame_from_array(nb::cast<FrameInput>(img))] { return f; };
  }

 private:
  static StepResult step_of(const nb::handle& r) {
    auto [reward, terminated] = nb::cast<std::pair<double, bool>>(r);
    StepResult s;
    s.reward = reward;
    s.terminated = terminated;
    return s;
  }
  nb::object game_;
};

RealtimeResult run(Mind& mind, const Task& core, std::optional<nb::object> perceive,
                   std::optional<nb::object> game, uint64_t seed, const std::string& gif,
                   const std::string& trace, std::optional<nb::object> latency, double frame_s,
                   double time_limit_s, const std::string& env_kwargs_json) {
  Task task = core;
  if (perceive) {  // a Python perceiver: the decision takes the GIL for it
    task.perceive = [fn = *perceive](const Values& obs) {
      nb::gil_scoped_acquire gil;
      return nb::cast<std::string>(fn(obs));
    };
  }
  RealtimeOptions o;
  o.seed = seed;
  o.gif_path = gif;
  o.trace_path = trace;
  o.frame_s = frame_s;
  o.time_limit_s = time_limit_s;
  if (!env_kwargs_json.empty()) o.env_kwargs = nlohmann::json::parse(env_kwargs_json);
  if (latency) {
    o.latency = [fn = *latency](const Decision& d) {
      nb::gil_scoped_acquire gil;
      return nb::cast<double>(fn(d));
    };
  }
  std::optional<PythonWorld> world;
  if (game) world.emplace(*game);
  RealtimeResult r;
  {
    nb::gil_scoped_release release;
    r = world ? run_realtime(task, *world, mind_decider(mind), o)
              : run_realtime(task, mind_decider(mind), o);
  }
  // The Python callables the task and options hold are released with the GIL held.
  return r;
}

}  // namespace

void bind_realtime(nb::module_& m) {
  nb::class_<TimedDecision>(m, "TimedDecision")
      .def_ro("challenge", &TimedDecision::challenge)
      .def_ro("read_s", &TimedDecision::read_s)
      .def_ro("answer_s", &TimedDecision::answer_s)
      .def_ro("in_time", &TimedDecision::in_time);

  nb::class_<RealtimeResult>(m, "RealtimeResult")
      .def_ro("episode", &RealtimeResult::episode)
      .def_ro("decisions", &RealtimeResult::decisions)
      .def_prop_ro(
          "verdict",
          [](const RealtimeResult& r) { return std::make_pair(r.verdict.ok, r.verdict.text); })
      .def_ro("late", &RealtimeResult::late)
      .def_ro("game_s", &RealtimeResult::game_s)
      .def_ro("p50_ms", &RealtimeResult::p50_ms)
      .def_ro("p95_ms", &RealtimeResult::p95_ms)
      .def_ro("gif_frames", &RealtimeResult::gif_frames)
      .def_ro("simulated", &RealtimeResult::simulated);

  m.def("run_realtime", &run, nb::arg("mind"), nb::arg("task"), nb::arg("perceive").none(),
        nb::arg("game").none(), nb::arg("seed"), nb::arg("gif"), nb::arg("trace"),
        nb::arg("latency").none(), nb::arg("frame_s"), nb::arg("time_limit_s"),
        nb::arg("env_kwargs_json"),
        "Plays a real-time game: the task's env (game None) or a Python game, against the wall "
        "clock (latency None) or in simulated time (latency(decision) game seconds).");
}

}  // namespace meadow::python
