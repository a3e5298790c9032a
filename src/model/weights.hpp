// The model's tensors bound by name and checked for shape. 2-D weights point into the
// mapping; 1-D ones (norms, biases) are decoded to float once, since they are tiny.
#pragma once

#include <vector>

#include "meadow/model.hpp"
#include "tensor/ops.hpp"

namespace meadow::model {

struct LayerWeights {
  tensor::Weights wq, wk, wv, wo;  // attention projections
  tensor::Weights gate, up, down;  // SwiGLU feed-forward
  std::vector<float> attn_norm, ffn_norm;
  std::vector<float> bq, bk, bv;  // empty when the arch has no q/k/v biases
};

struct ModelWeights {
  tensor::Weights token_embd;
  tensor::Weights output;  // token_embd when tied
  std::vector<float> output_norm;
  std::vector<LayerWeights> layers;
};

// Throws meadow::Error "PATH: problem" for a missing tensor or a wrong shape.
ModelWeights bind_weights(const gguf::File& file, const Config& cfg);

}  // namespace meadow::model
