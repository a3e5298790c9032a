// Log-probabilities of generated tokens (`logprobs` / `top_logprobs`) for causal models: one
// pass over prompt + answer after generation reads each token's row, log p(token | everything
// before it), the distribution it was drawn from before temperature and top-p shaped it (as
// OpenAI reports them). Diffusion models unmask tokens out of order, so there is no per-token
// chain-rule probability to report; the server refuses logprobs for them.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "meadow/model.hpp"

namespace meadow::server {

struct TokenLogprob {
  int32_t id = 0;
  double logprob = 0;
  std::vector<std::pair<int32_t, double>> top;  // the row's `top_n` most likely, best first
};

// Throws meadow::Error for a bidirectional model.
std::vector<TokenLogprob> token_logprobs(const model::Model& model, std::span<const int32_t> prompt,
                                         std::span<const int32_t> answer, int top_n, int threads);

}  // namespace meadow::server
