// Mind: a loaded model, per-task deciders (prefix caches) and the decide entry points. A
// meadow-reader file decides in parts instead: its reading of each table is cached the same way.
#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "meadow/error.hpp"
#include "meadow/mind.hpp"
#include "meadow/runtime/decider.hpp"
#include "meadow/runtime/encoder.hpp"
#include "meadow/runtime/gguf.hpp"
#include "meadow/runtime/model.hpp"
#include "meadow/runtime/reader.hpp"
#include "meadow/runtime/tokenizer.hpp"

namespace meadow {
namespace {

// One table as a reader read it.
struct ReadTable {
  std::string rule;
  std::vector<reader::Option> options;
  reader::Reading reading;
};

}  // namespace

// Either a language model with its tokenizer, or a reader (which carries its own); and the
// tables met so far, each read or encoded once.
struct Mind::Impl {
  std::string path;
  std::optional<model::Model> model;
  std::optional<Tokenizer> tok;
  std::optional<reader::Reader> reader;
  std::mutex mu;                                             // guards the two lists below
  std::vector<std::unique_ptr<ReadTable>> tables;            // a reader's, in first use order
  std::vector<std::unique_ptr<decision::Decider>> deciders;  // one per table, in first use order

  const model::Model& language_model() const;
  const decision::Decider& decider_for(const Task& task, const DecideOptions& o);
  Decision read_and_decide(const reader::Reading& r, std::string_view status, int threads) const;
};

namespace {

std::vector<decision::Choice> choices_of(const Task& task) {
  std::vector<decision::Choice> c;
  for (const auto& o : task.options) c.push_back({o.letter, o.text});
  return c;
}

// Whether a decider reads this task's table: the same rule and the same lettered options.
// Compared in place, so a decision allocates nothing to find its table.
std::vector<reader::Option> reader_options(const Task& task) {
  std::vector<reader::Option> out;
  for (const Option& o : task.options) out.push_back({o.letter, o.text});
  return out;
}

bool reads_table(const ReadTable& t, const Task& task) {
  if (t.rule != task.rule || t.options.size() != task.options.size()) return false;
  for (size_t i = 0; i < task.options.size(); ++i)
    if (t.options[i].letter != task.options[i].letter || t.options[i].text != task.options[i].text)
      return false;
  return true;
}

bool reads_table(const decision::Decider& d, const Task& task) {
  if (d.rule() != task.rule || d.choices().size() != task.options.size()) return false;
  for (size_t i = 0; i < task.options.size(); ++i)
    if (d.choices()[i].letter != task.options[i].letter ||
        d.choices()[i].text != task.options[i].text)
      return false;
  return true;
}

// Threads when none are asked: every core, but at most 2 for models under 8M weights per token
// (the embedded one: 1.3M), whose kernels are too small to split further. With the pool's spin
// (tensor/thread_pool.cpp) 2 threads decide in 0.76 ms against 1.37 ms on 1 (nano, bench_decide).
int auto_threads(const model::Config& c) {
  const int64_t qkvo = c.n_embd * c.head_dim * (2 * c.n_head + 2 * c.n_head_kv);
  const int64_t per_layer = qkvo + 3 * c.n_embd * c.n_ff;
  const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
  return per_layer * c.n_layer < 8'000'000 ? std::min(cores, 2) : cores;
}

}  // namespace

// A reader's decision as the mind's record: the letter's distribution with its margin and
// entropy, no Σ draft (a reader has no answer slot), and every condition with P(holds).
Decision reader_info(const reader::Reading& r, const reader::Decision& d, std::string_view status,
                     int64_t layers) {
  Decision info;
  info.status = std::string(status);
  info.letter = d.letter;
  info.probs = d.probs;
  info.margin = d.margin;
  std::vector<double> p;
  for (const auto& lp : d.probs) p.push_back(lp.second);
  info.entropy = decision::normalized_entropy(p);
  info.coherence = std::nan("");
  info.lat_ms = d.lat_ms;
  info.layers = layers;
  size_t k = 0;
  for (const reader::OptionReading& o : r.options)
    for (const reader::Clause& c : o.clauses)
      info.conditions.push_back({o.letter, reader::clause_text(c), d.clause_p.at(k++)});
  return info;
}

Mind::Mind(MindOptions opts) : Mind(resolve_model(""), std::move(opts)) {}

Mind::Mind(const std::string& path, MindOptions opts) : opts_(std::move(opts)) {
  m_ = std::make_unique<Impl>();
  m_->path = resolve_model(path);
  if (model::is_encoder(gguf::File::open(m_->path))) {
    if (!opts_.lora.empty())
      throw Error(m_->path + ": a meadow-reader takes no LoRA adapter (--lora is for decoders)");
    m_->reader.emplace(reader::Reader::open(m_->path));
    // An encoder pass over a situation is ~10 ms on one core: worth two, not more (bench_decide).
    const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
    if (opts_.decide.threads <= 0) opts_.decide.threads = std::min({cores, 2, model::kMaxThreads});
    if (opts_.decide.threads > model::kMaxThreads)
      throw Error("threads: a meadow-reader runs at most " + std::to_string(model::kMaxThreads));
    return;
  }
  m_->model.emplace(model::Model::load(m_->path, opts_.lora));
  m_->tok.emplace(Tokenizer::from_gguf(m_->model->file()));
  if (opts_.decide.threads <= 0) opts_.decide.threads = auto_threads(m_->model->config());
  check_options(opts_.decide);  // bad options fail here, not at a decision
}

Mind::~Mind() = default;
Mind::Mind(Mind&&) noexcept = default;
Mind& Mind::operator=(Mind&&) noexcept = default;

const std::string& Mind::model_path() const {
  return m_->path;
}
const model::Model& Mind::Impl::language_model() const {
  if (!model)
    throw Error(path +
                ": a meadow-reader reads rules in parts; it has no language model (generation, "
                "logits and chat need one: --model nano or smollm2-135m)");
  return *model;
}
const model::Model& Mind::model() const {
  return m_->language_model();
}
const Tokenizer& Mind::tokenizer() const {
  return m_->reader ? m_->reader->tokenizer() : *m_->tok;
}
const reader::Reader* Mind::reader() const {
  return m_->reader ? &*m_->reader : nullptr;
}

const reader::Reading* Mind::reading(const Task& task) {
  if (!m_->reader) return nullptr;
  std::lock_guard lock(m_->mu);
  for (const auto& t : m_->tables)
    if (reads_table(*t, task)) return &t->reading;
  validate(task);
  auto t = std::make_unique<ReadTable>();
  t->rule = task.rule;
  t->options = reader_options(task);
  t->reading = m_->reader->read(t->rule, t->options, {.threads = opts_.decide.threads});
  if (const std::string why = t->reading.unreadable(); !why.empty())
    throw Error("task " + task.name + ": " + why);
  m_->tables.push_back(std::move(t));
  return &m_->tables.back()->reading;
}

Decision Mind::Impl::read_and_decide(const reader::Reading& r, std::string_view status,
                                     int threads) const {
  const reader::Decision d = reader->decide(r, status, {.threads = threads});
  return reader_info(r, d, status, reader->encoder().config().n_layer);
}

// The table identifies the decider: editing the rule or an option makes a new one. A task is
// validated once, when its decider is made; later decisions only find it.
const decision::Decider& Mind::Impl::decider_for(const Task& task, const DecideOptions& o) {
  std::lock_guard lock(mu);
  for (const auto& d : deciders)
    if (reads_table(*d, task)) return *d;
  validate(task);
  deciders.push_back(
      std::make_unique<decision::Decider>(language_model(), *tok, task.rule, choices_of(task), o));
  return *deciders.back();
}

Decision Mind::decide_status(const Task& task, std::string_view status) {
  if (m_->reader) return m_->read_and_decide(*reading(task), status, opts_.decide.threads);
  return m_->decider_for(task, opts_.decide).decide(status);
}

void Mind::decide_status_into(const Task& task, std::string_view status, Decision& out) {
  if (m_->reader) {
    out = m_->read_and_decide(*reading(task), status, opts_.decide.threads);
    return;
  }
  m_->decider_for(task, opts_.decide).decide_into(status, out);
}

// A reader has no prefix to cache: uncached, it reads the rule again for this decision.
Decision Mind::decide_status_uncached(const Task& task, std::string_view status) {
  if (m_->reader) {
    validate(task);
    return m_->read_and_decide(
        m_->reader->read(task.rule, reader_options(task), {.threads = opts_.decide.threads}),
        status, opts_.decide.threads);
  }
  return m_->decider_for(task, opts_.decide).decide_uncached(status);
}

Decided Mind::decide(Task& task, const Values& obs) {
  // The table first: an invalid task fails before its perceiver runs.
  const reader::Reading* r = reading(task);
  const decision::Decider* decider = r ? nullptr : &m_->decider_for(task, opts_.decide);
  Decided out;
  const std::string status = perceive(task, obs);
  out.info =
      decider ? decider->decide(status) : m_->read_and_decide(*r, status, opts_.decide.threads);
  out.action = task.option(out.info.letter).action;
  return out;
}

std::vector<Decision> Mind::decide_status_batch(const Task& task,
                                                std::span<const std::string> statuses) {
  if (const reader::Reading* r = reading(task)) {
    std::vector<Decision> out;
    for (const std::string& s : statuses)
      out.push_back(m_->read_and_decide(*r, s, opts_.decide.threads));
    return out;
  }
  return m_->decider_for(task, opts_.decide).decide_batch(statuses);
}

std::vector<Decided> Mind::decide_batch(Task& task, const std::vector<Values>& observations) {
  if (m_->reader)
    reading(task);
  else
    m_->decider_for(task, opts_.decide);  // an invalid task fails before its perceiver runs
  std::vector<std::string> statuses;
  statuses.reserve(observations.size());
  for (const Values& obs : observations) statuses.push_back(perceive(task, obs));
  std::vector<Decision> infos = decide_status_batch(task, statuses);
  std::vector<Decided> out(infos.size());
  for (size_t i = 0; i < infos.size(); ++i) {
    out[i].action = task.option(infos[i].letter).action;
    out[i].info = std::move(infos[i]);
  }
  return out;
}

}  // namespace meadow
