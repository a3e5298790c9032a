// A bert file's hyper-parameters and tensors, bound by name and checked for shape. Matrices
// (and the embedding tables) point into the mapping; vectors (norms, biases) are decoded to
// float once, since they are tiny.
#pragma once

#include <vector>

#include "meadow/runtime/encoder.hpp"
#include "tensor/ops.hpp"

namespace meadow::model {

struct EncoderLayer {
  tensor::Weights wq, wk, wv, wo, up, down;
  std::vector<float> bq, bk, bv, bo, b_up, b_down;
  std::vector<float> attn_norm_w, attn_norm_b;  // attn_output_norm: after attention + residual
  std::vector<float> out_norm_w, out_norm_b;    // layer_output_norm: after the FFN + residual
};

struct EncoderWeights {
  tensor::Weights token_embd, position_embd, token_types;
  std::vector<float> embd_norm_w, embd_norm_b;
  std::vector<EncoderLayer> layers;
};

// Throws meadow::Error "PATH: problem" for another architecture, a missing or out-of-range
// key, a missing tensor or a wrong shape.
EncoderConfig read_encoder_config(const gguf::File& file);
EncoderWeights bind_encoder_weights(const gguf::File& file, const EncoderConfig& cfg);

}  // namespace meadow::model
