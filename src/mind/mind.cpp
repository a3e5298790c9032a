// Mind: a loaded model, per-task deciders (prefix caches) and the decide entry points.
#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "meadow/error.hpp"
#include "meadow/mind.hpp"

namespace meadow {

struct Mind::Loaded {
  std::string path;
  model::Model model;
  Tokenizer tok;
};

namespace {

std::vector<diffusion::Choice> choices_of(const Task& task) {
  std::vector<diffusion::Choice> c;
  for (const auto& o : task.options) c.push_back({o.letter, o.text});
  return c;
}

// Whether a decider reads this task's table: the same rule and the same lettered options.
// Compared in place, so a decision allocates nothing to find its table.
bool reads_table(const diffusion::Decider& d, const Task& task) {
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

diffusion::DecideOptions decide_options(const MindOptions& m) {
  diffusion::DecideOptions d;
  d.threads = m.threads;
  d.answer_slot = m.answer_slot;
  d.cache = m.prefix_cache;
  d.want_coherence = m.want_coherence;
  d.system = m.system;
  d.exit_margin = m.exit_margin;
  d.float_recheck = m.float_recheck;
  return d;
}

Mind::Mind(MindOptions opts) : Mind(resolve_model(""), std::move(opts)) {}

Mind::Mind(const std::string& path, MindOptions opts)
    : opts_(std::move(opts)), mu_(std::make_unique<std::mutex>()) {
  const std::string resolved = resolve_model(path);
  auto model = model::Model::load(resolved, opts_.lora);
  auto tok = Tokenizer::from_gguf(model.file());
  m_ = std::make_unique<Loaded>(Loaded{resolved, std::move(model), std::move(tok)});
  if (opts_.threads <= 0) opts_.threads = auto_threads(m_->model.config());
  diffusion::check_options(decide_options(opts_));  // bad options fail here, not at a decision
}

Mind::~Mind() = default;
Mind::Mind(Mind&&) noexcept = default;
Mind& Mind::operator=(Mind&&) noexcept = default;

const std::string& Mind::model_path() const {
  return m_->path;
}
const model::Model& Mind::model() const {
  return m_->model;
}
const Tokenizer& Mind::tokenizer() const {
  return m_->tok;
}

// The table identifies the decider: editing the rule or an option makes a new one. A task is
// validated once, when its decider is made; later decisions only find it.
const diffusion::Decider& Mind::decider_for(const Task& task) {
  std::lock_guard lock(*mu_);
  for (const auto& d : deciders_)
    if (reads_table(*d, task)) return *d;
  validate(task);
  deciders_.push_back(std::make_unique<diffusion::Decider>(
      m_->model, m_->tok, task.rule, choices_of(task), decide_options(opts_)));
  return *deciders_.back();
}

DecisionInfo Mind::decide_status(const Task& task, std::string_view status) {
  return decider_for(task).decide(status);
}

void Mind::decide_status_into(const Task& task, std::string_view status, DecisionInfo& out) {
  decider_for(task).decide_into(status, out);
}

DecisionInfo Mind::decide_status_uncached(const Task& task, std::string_view status) {
  return decider_for(task).decide_uncached(status);
}

Decided Mind::decide(Task& task, const Values& obs) {
  const auto& decider = decider_for(task);
  Decided out;
  out.info = decider.decide(perceive(task, obs));
  out.action = task.option(out.info.letter).action;
  return out;
}

std::vector<DecisionInfo> Mind::decide_status_batch(const Task& task,
                                                    std::span<const std::string> statuses) {
  return decider_for(task).decide_batch(statuses);
}

std::vector<Decided> Mind::decide_batch(Task& task, const std::vector<Values>& observations) {
  const auto& decider = decider_for(task);
  std::vector<std::string> statuses;
  statuses.reserve(observations.size());
  for (const Values& obs : observations) statuses.push_back(perceive(task, obs));
  std::vector<DecisionInfo> infos = decider.decide_batch(statuses);
  std::vector<Decided> out(infos.size());
  for (size_t i = 0; i < infos.size(); ++i) {
    out[i].action = task.option(infos[i].letter).action;
    out[i].info = std::move(infos[i]);
  }
  return out;
}

}  // namespace meadow
