// The `choice` parameter of chat completions: the answer restricted to given strings, each
// scored by the model and the most likely one returned.
//
// Method (stated in every response as `choice_method`):
//   causal models (qwen2, llama): log P(choice | prompt) = the sum over the choice's tokens of
//     log p(token_j | prompt, tokens_<j), every choice in one batched pass (the chain rule,
//     exact). Single-token choices: one pass over the prompt alone, reading its next-token row.
//   diffusion models (dream, llada): prompt + L mask tokens, one pass per distinct choice length
//     L; a choice's score = the sum over its positions of log p(token_j | prompt, every answer
//     position masked) — the step-0 reading, as the decision pass reads its letter. For
//     single-token choices this is one pass and one row.
// Log-probabilities are over the full vocabulary (log-softmax of the row), natural log.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "meadow/runtime/model.hpp"
#include "meadow/runtime/tokenizer.hpp"

namespace meadow::server {

struct ChoiceScore {
  std::string text;
  std::vector<int32_t> tokens;
  double logprob = 0;  // summed over the choice's tokens
};

struct ChoiceResult {
  std::vector<ChoiceScore> scores;  // in the request's order
  size_t best = 0;                  // index of the highest logprob (first on a tie)
  int passes = 0;                   // forward passes used
  std::string method;               // "causal-chain-rule" or "diffusion-all-masked"
};

// Throws meadow::Error for a choice with no tokens, a bidirectional model without a mask token,
// or prompt + longest choice over the context; meadow::ModelError when the model's logits are
// not finite (a broken model: no choice is picked).
ChoiceResult score_choices(const model::Model& model, const Tokenizer& tok,
                           std::span<const int32_t> prompt, const std::vector<std::string>& choices,
                           int threads);

}  // namespace meadow::server
