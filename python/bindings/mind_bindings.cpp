// The mind: decisions and exams run with the GIL released, so Python threads decide in
// parallel on one loaded model (meadow::Mind is thread-safe).
#include <chrono>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "meadow/mind.hpp"
#include "meadow/runtime/generate.hpp"
#include "meadow/runtime/model.hpp"
#include "meadow/runtime/reader.hpp"
#include "meadow/runtime/tokenizer.hpp"

namespace nb = nanobind;

namespace meadow::python {
namespace {

std::vector<std::pair<std::string, double>> probs_of(const Decision& d) {
  std::vector<std::pair<std::string, double>> out;
  for (const auto& [l, p] : d.probs) out.push_back({std::string(1, l), p});
  return out;
}

std::vector<ChatMessage> chat_of(const std::vector<std::pair<std::string, std::string>>& messages) {
  std::vector<ChatMessage> out;
  for (const auto& [role, content] : messages) out.push_back({role, content});
  return out;
}

// Mind.generate: text from the mind's model (chat messages, or raw text when none).
std::tuple<std::string, std::string, std::vector<int32_t>, int, int, int, double, double>
generate_text(const Mind& mind, const std::vector<std::pair<std::string, std::string>>& messages,
              const std::string& raw, int max_tokens, int block, int steps, double threshold,
              const std::string& confidence, double temperature, double top_p, uint64_t seed,
              std::vector<std::string> stop, bool cache, int threads) {
  generate::GenerateOptions o;
  o.max_new_tokens = max_tokens;
  o.block_size = block;
  o.steps_per_block = steps;
  o.threshold = threshold;
  o.confidence = generate::parse_confidence(confidence);
  o.temperature = temperature;
  o.top_p = top_p;
  o.seed = seed;
  o.stop = std::move(stop);
  o.cache = cache;
  o.threads = threads;
  const std::vector<ChatMessage> msgs = chat_of(messages);
  const auto prompt = messages.empty() ? mind.tokenizer().encode(raw, false)
                                       : generate::chat_prompt_ids(mind.tokenizer(), msgs);
  const generate::Generation g = generate::generate(mind.model(), mind.tokenizer(), prompt, o);
  return std::make_tuple(g.text, g.finish_reason, g.tokens, int(prompt.size()), g.steps, g.passes,
                         g.prefill_ms, g.ms);
}

// The records a decision and an exam return.
void bind_records(nb::module_& m) {
  nb::class_<Decision>(m, "Decision")
      .def_ro("status", &Decision::status)
      .def_prop_ro("letter", [](const Decision& d) { return std::string(1, d.letter); })
      .def_prop_ro("probs", &probs_of)
      .def_ro("margin", &Decision::margin)
      .def_ro("entropy", &Decision::entropy)
      .def_ro("coherence", &Decision::coherence)
      .def_ro("lat_ms", &Decision::lat_ms)
      .def_prop_ro("conditions", [](const Decision& d) {
        // (letter, condition as read, P(holds)): a reader's, empty for a letter model
        std::vector<std::tuple<std::string, std::string, double>> out;
        for (const auto& c : d.conditions) out.emplace_back(std::string(1, c.letter), c.text, c.p);
        return out;
      });

  nb::class_<ExamResult>(m, "ExamResult")
      .def_ro("ok", &ExamResult::ok)
      .def_ro("n_right", &ExamResult::n_right)
      .def_ro("n_total", &ExamResult::n_total)
      .def_ro("max_misses", &ExamResult::max_misses)
      .def_ro("reading", &ExamResult::reading)
      .def_ro("decisions", &ExamResult::decisions)
      .def_prop_ro("misses", [](const ExamResult& r) {
        // (status, expected letter, what the mind decided)
        std::vector<std::tuple<std::string, std::string, Decision>> out;
        for (const auto& x : r.misses)
          out.emplace_back(x.item.status, std::string(1, x.item.expected), x.got);
        return out;
      });
}

void bind_options(nb::module_& m) {
  // The options, bound once from their one definition (meadow/decision.hpp, meadow/mind.hpp):
  // MeadowMind(**options) sets these attributes by name, and lists them when one is unknown.
  nb::class_<DecideOptions>(m, "DecideOptions")
      .def(nb::init<>())
      .def_rw("threads", &DecideOptions::threads)
      .def_rw("answer_slot", &DecideOptions::answer_slot)
      .def_rw("prefix_cache", &DecideOptions::prefix_cache)
      .def_rw("want_coherence", &DecideOptions::want_coherence)
      .def_rw("system", &DecideOptions::system)
      .def_rw("exit_margin", &DecideOptions::exit_margin)
      .def_rw("float_recheck", &DecideOptions::float_recheck);
  nb::class_<MindOptions>(m, "MindOptions")
      .def(nb::init<>())
      .def_rw("decide", &MindOptions::decide)
      .def_rw("max_misses", &MindOptions::max_misses)
      .def_rw("lora", &MindOptions::lora);
}

void bind_mind_class(nb::module_& m) {
  nb::class_<Mind>(m, "Mind")
      .def(nb::init<const std::string&, MindOptions>(), nb::arg("path"), nb::arg("options"),
           nb::call_guard<nb::gil_scoped_release>())
      .def("decide_status", &Mind::decide_status, nb::arg("task"), nb::arg("status"),
           nb::call_guard<nb::gil_scoped_release>())
      .def(
          "decide_status_batch",
          [](Mind& mind, const Task& task, const std::vector<std::string>& statuses) {
            return mind.decide_status_batch(task, statuses);
          },
          nb::arg("task"), nb::arg("statuses"), nb::call_guard<nb::gil_scoped_release>())
      .def(
          "decide",
          [](Mind& mind, Task& task, const Values& obs) {
            Decided d = mind.decide(task, obs);
            return std::make_pair(std::move(d.action), std::move(d.info));
          },
          nb::arg("task"), nb::arg("obs"), nb::call_guard<nb::gil_scoped_release>(),
          "Perceive with the task's C++ perceiver (built-in tasks), then decide.")
      .def("exam", &Mind::exam, nb::arg("task"), nb::arg("max_misses") = nb::none(),
           nb::call_guard<nb::gil_scoped_release>())
      .def(
          "check",
          [](Mind& mind, const Task& task,
             std::optional<int> max_misses) -> std::pair<ExamResult, std::optional<std::string>> {
            try {
              return {mind.check(task, max_misses), std::nullopt};
            } catch (const ExamFailed& e) {
              return {e.result, std::string(e.what())};
            }
          },
          nb::arg("task"), nb::arg("max_misses") = nb::none(),
          nb::call_guard<nb::gil_scoped_release>(),
          "The exam and, when it fails, the message listing every miss.")
      .def("exam_table",
           [](const Mind&, const Task& t, const ExamResult& r) { return exam_table(t, r); })
      .def(
          "time_decide_status",
          [](Mind& mind, const Task& task, const std::vector<std::string>& statuses) {
            // The C++ side of the Python-overhead bench: mean ms per decision, timed in C++.
            const auto t0 = std::chrono::steady_clock::now();
            for (const auto& s : statuses) mind.decide_status(task, s);
            const std::chrono::duration<double, std::milli> dt =
                std::chrono::steady_clock::now() - t0;
            return statuses.empty() ? 0.0 : dt.count() / double(statuses.size());
          },
          nb::arg("task"), nb::arg("statuses"), nb::call_guard<nb::gil_scoped_release>())
      .def("generate", &generate_text, nb::arg("messages"), nb::arg("raw"), nb::arg("max_tokens"),
           nb::arg("block"), nb::arg("steps"), nb::arg("threshold"), nb::arg("confidence"),
           nb::arg("temperature"), nb::arg("top_p"), nb::arg("seed"), nb::arg("stop"),
           nb::arg("cache"), nb::arg("threads"), nb::call_guard<nb::gil_scoped_release>())
      .def(
          "draft",
          [](const Mind& mind, const std::vector<std::pair<std::string, std::string>>& messages,
             int length) {
            const std::vector<ChatMessage> msgs = chat_of(messages);
            const auto prompt = generate::chat_prompt_ids(mind.tokenizer(), msgs);
            const decision::Draft d = decision::draft(mind.model(), mind.tokenizer(), prompt,
                                                      length, mind.options().decide.threads);
            return std::make_tuple(d.text, d.confidence, d.coherence, d.ms);
          },
          nb::arg("messages"), nb::arg("length"), nb::call_guard<nb::gil_scoped_release>())
      .def_prop_ro("model_path", &Mind::model_path)
      .def_prop_ro("threads", [](const Mind& mind) { return mind.options().decide.threads; })
      .def_prop_ro("max_misses", [](const Mind& mind) { return mind.options().max_misses; })
      .def_prop_ro("arch",
                   [](const Mind& mind) {
                     return mind.reader()
                                ? std::string("bert")
                                : std::string(model::arch_name(mind.model().config().arch));
                   })
      .def(
          "reading",
          [](Mind& mind, const Task& task) -> std::optional<std::string> {
            const reader::Reading* r = mind.reading(task);
            if (!r) return std::nullopt;
            return reader::describe(*r);
          },
          nb::arg("task"), nb::call_guard<nb::gil_scoped_release>(),
          "How a meadow-reader read the task's rule (None for a model that answers the letter).");
}

}  // namespace

void bind_mind(nb::module_& m) {
  bind_records(m);
  bind_options(m);
  bind_mind_class(m);
  m.def(
      "resolve_model", [](const std::string& p) { return resolve_model(p); }, nb::arg("path") = "");
  m.def("known_models", [] {
    std::vector<std::tuple<std::string, std::string, bool, std::string, std::optional<std::string>>>
        out;
    for (const auto& l : list_models(ModelSearch::from_environment()))
      out.emplace_back(l.model.name, l.model.description, l.model.embedded, l.model.source, l.path);
    return out;
  });
  m.def("ai_prompt", &ai_prompt, nb::arg("language") = "cpp",
        "The guide for a code agent wiring a new game: 'cpp' or 'python'.");
}

}  // namespace meadow::python
