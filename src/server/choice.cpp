// Scoring a fixed set of answers (server/choice.hpp).
#include "server/choice.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "meadow/error.hpp"
#include "meadow/runtime/generate.hpp"

namespace meadow::server {
namespace {

// log softmax(row)[id], in double: the row's max is subtracted before exp.
double log_prob(const float* row, int64_t cols, int32_t id) {
  const float mx = *std::max_element(row, row + cols);
  double sum = 0;
  for (int64_t i = 0; i < cols; ++i) sum += std::exp(double(row[i]) - mx);
  return double(row[id]) - mx - std::log(sum);
}

void score_causal(const model::Model& m, std::span<const int32_t> prompt, ChoiceResult& r,
                  const model::RunOptions& ro) {
  const int64_t last = int64_t(prompt.size()) - 1;
  const bool single = std::all_of(r.scores.begin(), r.scores.end(),
                                  [](const ChoiceScore& s) { return s.tokens.size() == 1; });
  if (single) {  // every choice is read from the prompt's own next-token row
    const auto l = m.run({{{prompt.begin(), prompt.end()}, {last}}}, ro).front();
    decision::check_finite(m, l.data, "choice");
    for (auto& s : r.scores) s.logprob = log_prob(l.row(0), l.cols, s.tokens[0]);
    r.passes = 1;
    return;
  }
  std::vector<model::Sequence> batch;
  for (const auto& s : r.scores) {
    model::Sequence q{{prompt.begin(), prompt.end()}, {}};
    q.tokens.insert(q.tokens.end(), s.tokens.begin(), s.tokens.end());
    for (size_t j = 0; j < s.tokens.size(); ++j) q.positions.push_back(last + int64_t(j));
    batch.push_back(std::move(q));
  }
  const auto out = m.run(batch, ro);
  for (const auto& l : out) decision::check_finite(m, l.data, "choice");
  for (size_t i = 0; i < r.scores.size(); ++i) {
    auto& s = r.scores[i];
    for (size_t j = 0; j < s.tokens.size(); ++j)
      s.logprob += log_prob(out[i].row(int64_t(j)), out[i].cols, s.tokens[j]);
  }
  r.passes = 1;
}

void score_diffusion(const model::Model& m, std::span<const int32_t> prompt, ChoiceResult& r,
                     const model::RunOptions& ro) {
  const int32_t mask = m.config().mask_id;
  if (mask < 0) throw Error("choice: this diffusion model has no mask token");
  // The all-masked rows depend only on the length: one pass per distinct length.
  std::map<size_t, model::Logits> by_length;
  for (const auto& s : r.scores) {
    const size_t n = s.tokens.size();
    if (by_length.count(n)) continue;
    model::Sequence q{{prompt.begin(), prompt.end()}, {}};
    for (size_t j = 0; j < n; ++j) {
      q.tokens.push_back(mask);
      q.positions.push_back(m.logits_row_for(int64_t(prompt.size() + j)));
    }
    const auto l = by_length.emplace(n, m.run({q}, ro).front()).first;
    decision::check_finite(m, l->second.data, "choice");
    ++r.passes;
  }
  for (auto& s : r.scores) {
    const model::Logits& l = by_length.at(s.tokens.size());
    for (size_t j = 0; j < s.tokens.size(); ++j)
      s.logprob += log_prob(l.row(int64_t(j)), l.cols, s.tokens[j]);
  }
}

}  // namespace

ChoiceResult score_choices(const model::Model& model, const Tokenizer& tok,
                           std::span<const int32_t> prompt, const std::vector<std::string>& choices,
                           int threads) {
  if (prompt.empty()) throw Error("choice: the prompt has no tokens");
  ChoiceResult r;
  size_t longest = 0;
  for (const auto& c : choices) {
    ChoiceScore s{c, tok.encode(c, false), 0};
    if (s.tokens.empty()) throw Error("choice: \"" + c + "\" has no tokens");
    longest = std::max(longest, s.tokens.size());
    r.scores.push_back(std::move(s));
  }
  if (r.scores.empty()) throw Error("choice: no choices");
  const int64_t ctx = model.config().n_ctx;
  if (ctx > 0 && int64_t(prompt.size() + longest) > ctx)
    throw Error("choice: the prompt (" + std::to_string(prompt.size()) +
                " tokens) plus the longest choice (" + std::to_string(longest) +
                ") exceed the context length " + std::to_string(ctx));
  model::RunOptions ro;
  ro.threads = threads;
  if (model.config().causal) {
    r.method = "causal-chain-rule";
    score_causal(model, prompt, r, ro);
  } else {
    r.method = "diffusion-all-masked";
    score_diffusion(model, prompt, r, ro);
  }
  for (size_t i = 1; i < r.scores.size(); ++i)
    if (r.scores[i].logprob > r.scores[r.best].logprob) r.best = i;
  return r;
}

}  // namespace meadow::server
