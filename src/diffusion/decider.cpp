// Decider: one forward pass per decision, read as the softmax over the option letters.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "diffusion/softmax.hpp"
#include "meadow/decision.hpp"
#include "meadow/error.hpp"

namespace meadow::diffusion {
double Decision::prob(char letter) const {
  for (const auto& [l, p] : probs)
    if (l == letter) return p;
  return 0.0;
}

Decider::Decider(const model::Model& model, const Tokenizer& tok, std::string rule,
                 std::vector<Choice> choices, DecideOptions opts)
    : model_(&model),
      tok_(&tok),
      rule_(std::move(rule)),
      choices_(std::move(choices)),
      opts_(std::move(opts)) {
  if (choices_.empty()) throw Error("decision: no options");
  std::set<char> letters;
  const bool causal = model.config().causal;
  for (size_t i = 0; i < choices_.size(); ++i) {
    const char letter = choices_[i].letter;
    if (!letters.insert(letter).second)
      throw Error(std::string("decision: duplicate option letter '") + letter + "'");
    // Causal models may answer "A" or " A" after the generation prompt: both forms are read
    // and their probabilities added. The bidirectional slot is read in its trained form only.
    std::vector<int32_t> forms;
    for (const std::string& text : {std::string(1, letter), " " + std::string(1, letter)}) {
      const auto ids = tok.encode(text, false);
      if (ids.size() == 1 && std::find(forms.begin(), forms.end(), ids[0]) == forms.end())
        forms.push_back(ids[0]);
      if (!causal) break;
    }
    if (forms.empty())
      throw Error(std::string("decision: option letter '") + letter +
                  "' is not a single token of the model's vocabulary");
    letter_ids_.push_back(forms[0]);
    for (int32_t id : forms) read_ids_.push_back(id), read_owner_.push_back(i);
  }
  if (opts_.threads < 1) throw Error("decision: threads must be >= 1");
  const auto& cfg = model.config();
  if (!cfg.causal) {
    if (opts_.answer_slot < 1 || opts_.answer_slot > 8)
      throw Error("decision: answer slot must hold 1..8 mask tokens");
    if (cfg.mask_id < 0 && !tok.mask_id())
      throw Error("decision: the model has no mask token (tokenizer.ggml.mask_token_id)");
  }
  prefix_ids_ = encode_chat(tok, prompt_text(tok, opts_.system, rule_, choices_, "").prefix);
  if (prefix_ids_.empty()) throw Error("decision: empty prompt prefix");
  if (opts_.cache) cache_ = model.encode_prefix(prefix_ids_, opts_.threads);
}

PromptIds Decider::prompt_ids(std::string_view situation) const {
  PromptIds p;
  p.prefix = prefix_ids_;
  // The prefix text does not depend on the situation; only the suffix is re-rendered.
  p.suffix =
      encode_chat(*tok_, prompt_text(*tok_, opts_.system, rule_, choices_, situation).suffix);
  if (p.suffix.empty()) throw Error("decision: empty prompt suffix");
  const auto& cfg = model_->config();
  if (!cfg.causal) {
    const int32_t mask = cfg.mask_id >= 0 ? cfg.mask_id : *tok_->mask_id();
    p.slot.assign(size_t(opts_.answer_slot), mask);
    p.answer_pos = int64_t(p.prefix.size() + p.suffix.size());
  } else {
    p.answer_pos = int64_t(p.prefix.size() + p.suffix.size());  // the next token
  }
  if (cfg.n_ctx > 0 && p.size() > cfg.n_ctx)
    throw Error("decision: prompt of " + std::to_string(p.size()) +
                " tokens exceeds the model's context of " + std::to_string(cfg.n_ctx));
  return p;
}

Decision Decider::decide(std::string_view situation) const {
  return run(situation, opts_.cache);
}

Decision Decider::decide_uncached(std::string_view situation) const {
  return run(situation, false);
}

Decision Decider::run(std::string_view situation, bool use_cache) const {
  const auto t0 = std::chrono::steady_clock::now();
  const PromptIds p = prompt_ids(situation);
  const auto& cfg = model_->config();
  const int64_t P = int64_t(p.prefix.size());

  // Rows to read: every answer position (bidirectional) or the next-token row (causal).
  std::vector<int64_t> rows;
  if (!cfg.causal) {
    for (int64_t i = 0; i < int64_t(p.slot.size()); ++i)
      rows.push_back(model_->logits_row_for(p.answer_pos + i));
  } else {
    rows.push_back(p.answer_pos - 1);
  }
  if (!opts_.want_coherence) rows.resize(1);

  model::RunOptions ro;
  ro.threads = opts_.threads;
  if (!opts_.want_coherence) ro.vocab_rows = read_ids_;

  std::vector<model::Logits> out;
  if (use_cache) {
    if (!cached()) throw Error("decision: no prefix cache (built with cache = false)");
    model::Sequence s;
    s.tokens = p.suffix;
    s.tokens.insert(s.tokens.end(), p.slot.begin(), p.slot.end());
    s.positions = rows;
    out = model_->run_cached(cache_, {s}, ro);
  } else {
    model::Sequence s;
    s.tokens = p.prefix;
    s.tokens.insert(s.tokens.end(), p.suffix.begin(), p.suffix.end());
    s.tokens.insert(s.tokens.end(), p.slot.begin(), p.slot.end());
    s.positions = rows;
    out = model_->run({s}, ro, model::Mask::Prefix, P);
  }
  const model::Logits& lg = out.at(0);

  // Letters: softmax over the letter tokens' logits at the answer row, each letter's forms
  // summed. A model that gives non-finite logits is broken: an error, never a letter.
  std::vector<double> z(read_ids_.size());
  for (size_t k = 0; k < read_ids_.size(); ++k) {
    z[k] = opts_.want_coherence ? lg.row(0)[read_ids_[k]] : lg.row(0)[k];
    if (!std::isfinite(z[k]))
      throw Error("decision: the model " + model_->file().path() +
                  " gives non-finite logits (NaN or Inf) for the option letters");
  }
  const std::vector<double> pz = softmax(z);
  std::vector<double> pr(choices_.size(), 0.0);
  for (size_t k = 0; k < pz.size(); ++k) pr[read_owner_[k]] += pz[k];

  Decision d;
  size_t best = 0;
  for (size_t i = 0; i < pr.size(); ++i) {
    d.probs.emplace_back(choices_[i].letter, pr[i]);
    if (pr[i] > pr[best]) best = i;
  }
  d.letter = choices_[best].letter;
  double second = 0.0;
  for (size_t i = 0; i < pr.size(); ++i)
    if (i != best) second = std::max(second, pr[i]);
  d.margin = pr.size() > 1 ? pr[best] - second : 1.0;
  for (const double p : pr)
    if (p > 0) d.entropy -= p * std::log(p);
  d.entropy = pr.size() > 1 ? d.entropy / std::log(double(pr.size())) : 0.0;

  if (opts_.want_coherence) {
    std::vector<int32_t> draft;
    double sum = 0.0;
    for (int64_t r = 0; r < lg.rows; ++r) {
      const auto top = top_token(lg.row(r), lg.cols);
      sum += top.prob;
      draft.push_back(top.id);
    }
    d.coherence = sum / double(lg.rows);
    d.draft = tok_->decode(draft);
  } else {
    d.coherence = std::numeric_limits<double>::quiet_NaN();
  }
  d.lat_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return d;
}

}  // namespace meadow::diffusion
