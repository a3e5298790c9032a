// The mind: a model that reads a task's rule and a status sentence and answers an option
// letter in one forward pass (meadow/decision.hpp), plus the exam and working memory.
//
//   meadow::Mind mind;                          // model resolved as below, loaded once
//   auto [action, info] = mind.decide(task, obs);
//   mind.check(task);                           // the exam; throws meadow::ExamFailed
//
// Model resolution (first hit wins; `resolve_model`):
//   1. $MEADOW_MIND_MODEL (must exist if set),
//   2. the explicit path given to Mind(path); a bare name without '/' that is not a file is a
//      model name: a known model's file (`known_models()`: "nano" is the embedded model,
//      "smollm2-135m" the pinned SmolLM2 that scripts/fetch_models.sh puts in the cache,
//      "reader" a meadow-reader built into the cache by train/reader/), else
//      NAME then NAME.gguf in the cache dir,
//   3. the cache dir: $XDG_CACHE_HOME/meadow-mind/models, else ~/.meadow-mind/models —
//      its default.gguf, else its meadow-nano.gguf,
//   4. the embedded default meadow-nano.gguf, searched in
//      <dir of /proc/self/exe>/../share/meadow-mind/models (installed layout),
//      <dir of /proc/self/exe>/models, <dir of the shared library holding the mind>/models
//      (the Python package's extension module), and MEADOW_MODELS_DIR (compile time: the
//      source tree's models/ folder, so build trees find it).
//   None found → meadow::Error listing every place tried.
//
// A meadow-reader file (a bert encoder with reader heads, meadow/runtime/reader.hpp) is found by
// its architecture: it reads each task's rule once into conditions (reading()), and each decision
// judges them against the situation; Decision::conditions says why the letter was chosen.
//
// Per-task prefix cache: the first decision of a task (known by its rule + options text)
// validates the task and encodes the constant prefix; later decisions tokenize and run only the
// situation. A Mind is safe to use
// from several threads (the cache map is locked); decisions themselves run in parallel.
//
// Stability: everything here is stable (kept across releases; fields may be added) unless
// marked "Experimental:", which may change or go.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "meadow/decision.hpp"
#include "meadow/error.hpp"
#include "meadow/task.hpp"

namespace meadow {

// The runtime this header names only by reference (include the runtime header to use them).
class Tokenizer;  // meadow/runtime/tokenizer.hpp
namespace model {
class Model;  // meadow/runtime/model.hpp
}
namespace reader {
class Reader;  // meadow/runtime/reader.hpp
struct Reading;
struct Decision;
}  // namespace reader

// How a Mind is made.
struct MindOptions {
  // How every decision is made (meadow/decision.hpp). threads 0 = auto: at most 2 threads for
  // small models (< 8 M weights in the layers: a one-token-slot decision is too short to split
  // further; measured in bench_decide) and for a meadow-reader, else every hardware thread;
  // Mind::options().decide.threads reports the resolved number.
  DecideOptions decide{};
  int max_misses = 1;  // exam passes with at most this many misses
  // A LoRA adapter GGUF (llama.cpp's convention, meadow/runtime/model.hpp) applied on top of the
  // model, in cached and uncached decisions alike; "" for none.
  std::string lora{};
};

// Experimental: a meadow-reader's decision as the mind's record: its letter, probabilities, margin
// and entropy, no Σ (NaN: a reader has no answer slot), and every condition of the reading with
// P(holds). What Mind returns for a reader; the server answers the same.
Decision reader_info(const reader::Reading& reading, const reader::Decision& decision,
                     std::string_view status, int64_t layers);

// What Mind::decide returns: the action to send to the env and the decision behind it.
struct Decided {
  Values action;  // options[letter].action
  Decision info;  // the decision's record (meadow/decision.hpp)
};

// An exam item the mind got wrong.
struct ExamMiss {
  ExamItem item;  // the sentence and the expected letter
  Decision got;   // what the mind decided
};

// The exam of a task: every item of Task::sanity decided.
struct ExamResult {
  bool ok = false;                  // misses <= max_misses
  int n_right = 0;                  // items answered with the expected letter
  int n_total = 0;                  // items
  int max_misses = 1;               // the bar it was held to
  std::vector<Decision> decisions;  // one per exam item, exam order
  std::vector<ExamMiss> misses;     // the wrong ones, exam order
  // How a meadow-reader read the rule (reader::describe), printed before the table; empty for
  // a model that answers the letter directly.
  std::string reading;
};

// A failed exam. NOT a meadow::Error (bad input, exit 2): the CLI reports it with exit 1.
// what(): the summary line ("exam NAME: 4/6 right, 2 missed (at most 1 allowed): FAIL"), then
// one line per miss: `  miss: "STATUS" expected B, chose A (A=0.612 B=0.388)`.
struct ExamFailed : std::runtime_error {
  ExamFailed(std::string message, ExamResult r)
      : std::runtime_error(std::move(message)), result(std::move(r)) {}
  ExamResult result;  // the whole exam
};

// Where to look for a model; `from_environment()` reads the process environment and
// /proc/self/exe. Tests build their own.
struct ModelSearch {
  std::optional<std::string> env_model;    // $MEADOW_MIND_MODEL
  std::optional<std::string> xdg_cache;    // $XDG_CACHE_HOME
  std::optional<std::string> home;         // $HOME
  std::vector<std::string> embedded_dirs;  // folders holding meadow-nano.gguf
  static ModelSearch from_environment();
  std::optional<std::string> cache_dir() const;  // per the order above, if XDG/HOME set
};

// A model known by name. Embedded models ship in models/; the others are fetched into the
// cache dir by the project's setup (pinned in models/pins.json) and never downloaded
// implicitly.
struct KnownModel {
  std::string name;         // what --model takes
  std::string file;         // file name in the cache dir or the embedded dirs
  bool embedded = false;    // ships with the binary
  std::string description;  // one line
  std::string source;       // how to get it when absent
};
const std::vector<KnownModel>& known_models();

// Each known model with the path where it is present (nullopt: absent). A present file is
// opened as GGUF (header, metadata and tensor table checked; nothing is loaded): `problem` says
// why it cannot be read ("not a GGUF file: magic bytes are ...", "truncated: ..."), empty when
// it reads.
struct ModelListing {
  KnownModel model;                 // the known model
  std::optional<std::string> path;  // where it is, when present
  std::string problem;              // why the present file cannot be read; "" when it reads
};
std::vector<ModelListing> list_models(const ModelSearch& where);

// The model path per the resolution order; explicit may be empty. Throws meadow::Error.
std::string resolve_model(const std::string& explicit_path, const ModelSearch& where);
std::string resolve_model(const std::string& explicit_path = "");

class Mind {
 public:
  explicit Mind(MindOptions opts = {});  // resolve_model("")
  explicit Mind(const std::string& path, MindOptions opts = {});
  ~Mind();
  Mind(Mind&&) noexcept;
  Mind& operator=(Mind&&) noexcept;

  // One decision: perceive (with working memory, see meadow/task.hpp), one forward pass,
  // the chosen option's action. Throws meadow::Error for an invalid task or no perceiver.
  Decided decide(Task& task, const Values& obs);
  // Several observations of one task (e.g. a vector env's) decided in one forward pass that
  // shares the cached prefix: perceived in order (working memory sees them one after another),
  // then decided together. Each answer is decide()'s to float rounding; each lat_ms is the
  // batch's. Throws as decide().
  std::vector<Decided> decide_batch(Task& task, const std::vector<Values>& observations);
  std::vector<Decision> decide_status_batch(const Task& task,
                                            std::span<const std::string> statuses);
  // The decision for a status sentence directly (exam items, `decide` CLI, benches).
  Decision decide_status(const Task& task, std::string_view status);
  // Same into out, reusing its storage: once the table's decider is warm, a cached decision
  // allocates nothing (bench/bench_alloc.cpp).
  void decide_status_into(const Task& task, std::string_view status, Decision& out);
  // Same, always one uncached pass with the same attention mask (comparison path).
  Decision decide_status_uncached(const Task& task, std::string_view status);

  // The exam: every sanity item decided. Never throws for a failing exam.
  ExamResult exam(const Task& task, std::optional<int> max_misses = std::nullopt);
  // The exam; throws ExamFailed (listing each miss) when misses > max_misses.
  ExamResult check(const Task& task, std::optional<int> max_misses = std::nullopt);

  const std::string& model_path() const;  // the resolved model file
  // The language model and its tokenizer (include meadow/runtime/model.hpp and
  // meadow/runtime/tokenizer.hpp to use them). Throws meadow::Error for a meadow-reader, which
  // has none.
  const model::Model& model() const;
  const Tokenizer& tokenizer() const;
  // Experimental: the reader when the model file is a meadow-reader (a bert encoder with reader
  // heads: decisions read the rule in parts, and carry Decision::conditions); else nullptr.
  const reader::Reader* reader() const;
  // Experimental: how the reader read the task's rule (once per table, then cached); nullptr for a
  // model that answers the letter directly. Throws meadow::Error for an invalid task, or a rule the
  // reader cannot decide from (Reading::unreadable: the words at fault).
  const reader::Reading* reading(const Task& task);
  const MindOptions& options() const { return opts_; }  // threads resolved (0: auto → chosen)

 private:
  struct Impl;  // the model or reader, and the tables met so far (src/mind/mind.cpp)
  MindOptions opts_;
  std::unique_ptr<Impl> m_;
};

// A table of the exam: one line per item with status, expected, chosen, probabilities and a
// mark for misses, then "exam: N/M right (K misses allowed) PASS|FAIL". For `check` output.
std::string exam_table(const Task& task, const ExamResult& result);

// A self-contained guide for a code agent wiring a new game, for the C++ API ("cpp") or the
// Python package ("python"). Throws Error for another language.
std::string ai_prompt(std::string_view language = "cpp");

}  // namespace meadow
