// The step-0 draft and its Σ coherence over a generation prompt (meadow/runtime/decider.hpp).
#include <chrono>
#include <numeric>
#include <string>

#include "decision/softmax.hpp"
#include "meadow/error.hpp"
#include "meadow/runtime/decider.hpp"

namespace meadow::decision {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

}  // namespace

Draft draft(const model::Model& model, const Tokenizer& tok, std::span<const int32_t> prompt,
            int length, int threads) {
  const model::Config& c = model.config();
  if (prompt.empty()) throw Error("draft: the prompt has no tokens");
  if (length < 1) throw Error("draft: length must be at least 1");
  if (!c.causal && c.mask_id < 0) throw Error("draft: this diffusion model has no mask token");
  const auto t0 = Clock::now();
  model::RunOptions ro;
  ro.threads = threads;
  const int64_t p0 = int64_t(prompt.size());
  std::vector<int32_t> seq(prompt.begin(), prompt.end());
  std::vector<int64_t> rows;
  if (c.causal) {
    rows.push_back(p0 - 1);
  } else {
    seq.insert(seq.end(), size_t(length), c.mask_id);
    for (int64_t i = 0; i < length; ++i) rows.push_back(model.logits_row_for(p0 + i));
  }
  if (!c.causal && c.n_ctx > 0 && int64_t(seq.size()) > c.n_ctx)
    throw Error("draft: prompt + slot exceed the context length " + std::to_string(c.n_ctx));
  // The prefix attends to itself only, as in a cached decision (meadow/runtime/decider.hpp).
  const model::Logits l = model.run({{seq, rows}}, ro, model::Mask::Prefix, p0).front();
  check_finite(model, l.data, "draft");
  Draft d;
  for (int64_t r = 0; r < l.rows; ++r) {
    const TopToken t = top_token(l.row(r), l.cols);
    d.tokens.push_back(t.id);
    d.confidence.push_back(t.prob);
  }
  d.coherence =
      std::accumulate(d.confidence.begin(), d.confidence.end(), 0.0) / double(d.confidence.size());
  d.text = tok.decode(d.tokens, true);
  d.ms = ms_since(t0);
  return d;
}

}  // namespace meadow::decision
