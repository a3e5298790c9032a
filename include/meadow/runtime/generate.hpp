// Text generation on the loaded model: block-wise masked diffusion with a K/V cache for
// bidirectional archs (dream, llada), token by token for causal ones (qwen2, llama); infill;
// and the routing of a request by its step-0 draft (meadow/runtime/decider.hpp: draft, Σ).
//
// Block diffusion. The answer grows block by block. A block starts as `block_size` mask tokens
// after everything committed so far; each step runs the block against the cache, predicts
// every masked position, and unmasks the most confident ones (`steps_per_block` steps, the
// count spread evenly; or, with `threshold`, every position at least that confident, at least
// one a step). A finished block's K/V join the cache, so later blocks never recompute it; the
// prompt's K/V are computed once. The attention this implies is block-causal (a block sees
// itself and every earlier block); `cache = false` recomputes the whole canvas with that same
// mask every step (what a cache-less implementation does), so both paths pick the same tokens
// up to float rounding. Shifted-logit models (dream) read position p from row p - 1; the row
// before a block is the last committed token's, kept from the pass that committed it.
//
// Causal models: one token a step, each appended to the cache (`cache = false`: the whole
// sequence recomputed every step).
//
// Stops at the model's end-of-turn or end-of-text token, at a stop string, or after
// max_new_tokens. Sampling (temperature > 0, top_p) is reproducible per seed.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "meadow/runtime/chat_template.hpp"
#include "meadow/runtime/decider.hpp"
#include "meadow/runtime/model.hpp"
#include "meadow/runtime/tokenizer.hpp"

namespace meadow::generate {

// How a masked position's confidence is scored, to choose which to unmask first.
enum class Confidence {
  Probability,  // probability of the chosen token
  Margin,       // top-1 minus top-2 probability
  NegEntropy,   // minus the entropy of the position's distribution
};
// "probability" | "margin" | "entropy"; throws meadow::Error for anything else.
Confidence parse_confidence(std::string_view name);

struct GenerateOptions {
  int max_new_tokens = 128;
  int block_size = 32;      // diffusion: tokens per block (the last block may be shorter)
  int steps_per_block = 0;  // diffusion: denoising steps per block; 0 = one token a step
  double threshold = 0;     // diffusion, > 0: confidence-threshold parallel mode
  Confidence confidence = Confidence::Probability;
  double temperature = 0;  // 0 = greedy; at most kMaxTemperature
  double top_p = 1;        // nucleus sampling when temperature > 0
  uint64_t seed = 0;
  bool cache = true;  // false: recompute everything every step (the reference path)
  int threads = 1;
  std::vector<std::string> stop;  // stop strings: the text ends before the first one (check_stop)
  bool ignore_eos = false;        // run to max_new_tokens through end tokens (benchmarks)
  // Causal models, >= 0: record each new token's log-probability and this many most likely
  // alternatives (Generation::logprobs), from the row the token was picked from. Diffusion
  // models unmask out of order, so they record none.
  int logprobs = -1;
};

// A token's log-probability in the row it was read from (the model's own distribution, before
// temperature and top-p shape it), with the row's `top` most likely tokens, best first.
struct TokenLogprob {
  int32_t id = 0;
  double logprob = 0;
  std::vector<std::pair<int32_t, double>> top;
};
TokenLogprob token_logprob(const float* row, int64_t n_vocab, int32_t id, int top_n);

struct Generation {
  std::vector<int32_t> tokens;         // the new tokens (stop token excluded)
  std::string text;                    // decoded, special tokens skipped, cut at a stop string
  std::string finish_reason;           // "stop" (end token or stop string) or "length"
  int steps = 0;                       // denoising steps (diffusion) or tokens (causal)
  int passes = 0;                      // forward passes, prompt included
  double prefill_ms = 0;               // encoding the prompt
  double ms = 0;                       // everything after the prompt
  std::vector<TokenLogprob> logprobs;  // per token of `tokens` when asked (causal models)
};

// Called after each committed block (diffusion) or token (causal) with the answer so far (its
// tokens, text and logprobs); returning false stops generation (finish_reason "stop").
using OnCommit = std::function<bool(const Generation& so_far)>;

// Throws meadow::Error for an empty prompt, a prompt plus max_new_tokens over the context,
// options out of range, or a bidirectional model without a mask token. Generation, infill and
// the draft throw meadow::ModelError when the model's logits are not finite (check_finite).
Generation generate(const model::Model& model, const Tokenizer& tok,
                    std::span<const int32_t> prompt, const GenerateOptions& opts,
                    const OnCommit& on_commit = {});

// Infill: `n_tokens` masked tokens between a fixed `before` and `after`, unmasked by the same
// schedule (steps_per_block steps over the gap, or the threshold) with the model's full
// attention, so the gap reads both sides. Bidirectional models only. Special tokens in the
// gap are dropped from `text`.
Generation infill(const model::Model& model, const Tokenizer& tok, std::span<const int32_t> before,
                  std::span<const int32_t> after, int n_tokens, const GenerateOptions& opts);

// The general form: every position of `gaps` in `seq` is masked, then filled in place.
Generation fill_gaps(const model::Model& model, const Tokenizer& tok, std::vector<int32_t>& seq,
                     const std::vector<int64_t>& gaps, const GenerateOptions& opts);

// The one validation of a generation request, whoever makes it (the server, the Python
// package, the CLI): generate() checks the options (check_options below, stop strings
// included) and chat_prompt_ids the messages. Each throws meadow::Error naming the field.
inline constexpr int kMaxStops = 16;  // stop strings per request
inline constexpr double kMaxTemperature = 2;
// A message role as the chat template takes it: "system", "user", "assistant" or "tool"
// ("developer", OpenAI's newer name for "system", becomes "system").
std::string chat_role(std::string_view role);
// At most kMaxStops strings, none empty.
void check_stop(const std::vector<std::string>& stop);
// Everything generate() checks before it runs that does not depend on the model or prompt.
void check_options(const GenerateOptions& o);

// The model's chat prompt for the messages, ending with the assistant generation prompt.
// Throws meadow::Error for no messages or a role chat_role refuses.
std::vector<int32_t> chat_prompt_ids(const Tokenizer& tok,
                                     const std::vector<ChatMessage>& messages);

// The tokens that end generation: end-of-text, end-of-turn and the template's turn markers.
std::vector<int32_t> stop_token_ids(const Tokenizer& tok);

// What the draft says about the answer before any generation: which kinds of content it
// signals (code, html, sql, chart: keyword and markup cues in the draft text), the answer mode
// they imply, and whether to escalate (Σ below the threshold: the model does not yet see an
// answer; hand the request to a larger model or generate with more steps).
struct Route {
  std::vector<std::string> signals;  // in that order, those present
  std::string mode;                  // "code" (code, html or sql), "chart", or "text"
  double coherence = 0;
  bool escalate = false;
};
Route route(const decision::Draft& draft, double escalate_below = 0.5);

}  // namespace meadow::generate
