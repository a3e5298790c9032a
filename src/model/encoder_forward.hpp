// The BERT layers over a batch of sequences laid end to end: every matmul sees all the batch's
// tokens at once, attention runs per sequence (full, bidirectional).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "model/encoder_weights.hpp"
#include "model/forward.hpp"

namespace meadow::model {

// Embeds tokens (word + position within its segment + token type, then LayerNorm) and runs
// every layer; returns the last hidden states [n_tokens, n_embd] (ws.x). Ids are not checked
// here (Encoder::encode does).
const std::vector<float>& encoder_layers(const EncoderConfig& c, const EncoderWeights& w,
                                         std::span<const int32_t> tokens,
                                         std::span<const int32_t> types,
                                         std::span<const Segment> segs, WorkspaceBuffers& ws,
                                         tensor::Threads th);

}  // namespace meadow::model
