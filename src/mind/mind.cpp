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

DecisionInfo info_of(std::string_view status, const diffusion::Decision& d) {
  DecisionInfo i;
  i.status = std::string(status);
  i.letter = d.letter;
  i.probs = d.probs;
  i.margin = d.margin;
  i.entropy = d.entropy;
  i.coherence = d.coherence;
  i.lat_ms = d.lat_ms;
  return i;
}

// Weights a decision multiplies per token (attention + feed-forward of every layer).
int auto_threads(const model::Config& c) {
  const int64_t qkvo = c.n_embd * c.head_dim * (2 * c.n_head + 2 * c.n_head_kv);
  const int64_t per_layer = qkvo + 3 * c.n_embd * c.n_ff;
  if (per_layer * c.n_layer < 8'000'000) return 1;
  return int(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace

double DecisionInfo::prob(char l) const {
  for (const auto& [k, p] : probs)
    if (k == l) return p;
  return 0.0;
}

Mind::Mind(MindOptions opts) : Mind(resolve_model(""), std::move(opts)) {}

Mind::Mind(const std::string& path, MindOptions opts)
    : opts_(std::move(opts)), mu_(std::make_unique<std::mutex>()) {
  const std::string resolved = resolve_model(path);
  auto model = model::Model::load(resolved, opts_.lora);
  auto tok = Tokenizer::from_gguf(model.file());
  m_ = std::make_unique<Loaded>(Loaded{resolved, std::move(model), std::move(tok)});
  if (opts_.threads <= 0) opts_.threads = auto_threads(m_->model.config());
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

const diffusion::Decider& Mind::decider_for(const Task& task) {
  validate(task);
  const auto choices = choices_of(task);
  // The table identifies the cache: editing the rule or an option makes a new one. Each text is
  // length-prefixed: joined with separators, an option text holding "\nB) ..." made the same
  // key as two options, and the second table got the first one's letters.
  std::string key = std::to_string(task.rule.size()) + ':' + task.rule;
  for (const auto& c : choices) key += c.letter + std::to_string(c.text.size()) + ':' + c.text;
  std::lock_guard lock(*mu_);
  auto it = deciders_.find(key);
  if (it == deciders_.end()) {
    diffusion::DecideOptions o;
    o.threads = opts_.threads;
    o.answer_slot = opts_.answer_slot;
    o.cache = opts_.prefix_cache;
    o.want_coherence = opts_.want_coherence;
    o.system = opts_.system;
    auto d = std::make_unique<diffusion::Decider>(m_->model, m_->tok, task.rule, choices, o);
    it = deciders_.emplace(std::move(key), std::move(d)).first;
  }
  return *it->second;
}

DecisionInfo Mind::decide_status(const Task& task, std::string_view status) {
  return info_of(status, decider_for(task).decide(status));
}

DecisionInfo Mind::decide_status_uncached(const Task& task, std::string_view status) {
  return info_of(status, decider_for(task).decide_uncached(status));
}

Decided Mind::decide(Task& task, const Values& obs) {
  const auto& decider = decider_for(task);
  const std::string status = perceive(task, obs);
  Decided out;
  out.info = info_of(status, decider.decide(status));
  out.action = task.option(out.info.letter).action;
  return out;
}

}  // namespace meadow
