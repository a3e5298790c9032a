// The reading passes (read_option.cpp, read_rule.cpp) and what they share: an input built token
// by token with each token's place, and the small numeric helpers of the heads.
#pragma once

#include <cmath>
#include <string_view>
#include <utility>
#include <vector>

#include "meadow/runtime/encoder.hpp"
#include "meadow/runtime/reader.hpp"
#include "meadow/runtime/tokenizer.hpp"
#include "reader/heads.hpp"
#include "reader/probability.hpp"
#include "reader/tags.hpp"

namespace meadow::reader {

// An encoder input and, per token, its bytes, segment and (later) tag.
struct Pass {
  model::EncoderInput input;
  std::vector<TaggedToken> tokens;
  void add(int32_t id, TokenOffset off, int seq, int type) {
    input.tokens.push_back(id);
    input.types.push_back(type);
    tokens.push_back({off, seq, 0, 1, false});
  }
};

struct PassContext {
  const model::Encoder& encoder;
  const Tokenizer& tokenizer;
  const Heads& heads;
  model::EncodeOptions encode;
};

// Fill r.options (clauses with their literals, P(default)), r.unclaimed and r.unread.
void read_per_option(const PassContext& ctx, std::string_view rule,
                     const std::vector<Option>& options, Reading& r);
void read_per_rule(const PassContext& ctx, std::string_view rule,
                   const std::vector<Option>& options, Reading& r);

// The first largest logit (torch.argmax's choice) and its softmax probability.
inline std::pair<int, double> argmax_p(const float* logits, int64_t n) {
  int best = 0;
  for (int64_t k = 1; k < n; ++k)
    if (logits[k] > logits[best]) best = int(k);
  double sum = 0;
  for (int64_t k = 0; k < n; ++k) sum += std::exp(double(logits[k]) - double(logits[best]));
  return {best, 1.0 / sum};
}

// The mean of the listed rows of h (model.py's mean / pool; zeros for no rows, as its
// clamp(min=1) gives).
inline std::vector<float> mean_of(const model::Hidden& h, const std::vector<size_t>& rows) {
  std::vector<float> m(size_t(h.cols), 0.0f);
  for (size_t r : rows)
    for (int64_t c = 0; c < h.cols; ++c) m[size_t(c)] += h.row(int64_t(r))[c];
  for (float& x : m) x /= float(std::max<size_t>(rows.size(), 1));
  return m;
}

}  // namespace meadow::reader
