// Per-token log-probabilities after generation (server/logprobs.hpp).
#include "server/logprobs.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "meadow/error.hpp"

namespace meadow::server {

std::vector<TokenLogprob> token_logprobs(const model::Model& model, std::span<const int32_t> prompt,
                                         std::span<const int32_t> answer, int top_n, int threads) {
  if (!model.config().causal)
    throw Error("logprobs: only causal models give per-token probabilities");
  std::vector<TokenLogprob> out;
  if (answer.empty() || prompt.empty()) return out;
  model::Sequence q{{prompt.begin(), prompt.end()}, {}};
  q.tokens.insert(q.tokens.end(), answer.begin(), answer.end() - 1);  // the last is only read
  for (size_t j = 0; j < answer.size(); ++j) q.positions.push_back(int64_t(prompt.size() + j) - 1);
  model::RunOptions ro;
  ro.threads = threads;
  const model::Logits l = model.run({q}, ro).front();
  std::vector<int32_t> order(size_t(l.cols));
  for (size_t j = 0; j < answer.size(); ++j) {
    const float* row = l.row(int64_t(j));
    const float mx = *std::max_element(row, row + l.cols);
    double sum = 0;
    for (int64_t i = 0; i < l.cols; ++i) sum += std::exp(double(row[i]) - mx);
    const double log_z = mx + std::log(sum);
    TokenLogprob t{answer[j], double(row[answer[j]]) - log_z, {}};
    const size_t k = std::min<size_t>(size_t(std::max(top_n, 0)), order.size());
    if (k > 0) {
      std::iota(order.begin(), order.end(), 0);
      std::partial_sort(order.begin(), order.begin() + long(k), order.end(),
                        [&](int32_t a, int32_t b) { return row[a] > row[b]; });
      for (size_t i = 0; i < k; ++i) t.top.emplace_back(order[i], double(row[order[i]]) - log_z);
    }
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace meadow::server
