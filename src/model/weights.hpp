// The model's tensors bound by name and checked for shape. 2-D weights point into the
// mapping; 1-D ones (norms, biases) are decoded to float once, since they are tiny.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "meadow/runtime/model.hpp"
#include "tensor/ops.hpp"

namespace meadow::model {

// The projections a LoRA adapter may change, in llama.cpp's tensor names (model/lora.cpp).
enum Proj { kQ, kK, kV, kO, kGate, kUp, kDown, kProjCount };

// A LoRA pair of one projection: delta W = B A, kept as float32 (small: rank x (in + out)).
struct LowRank {
  int64_t rank = 0;      // 0: the projection is not adapted
  std::vector<float> a;  // A [rank, n_in]
  std::vector<float> b;  // (alpha / rank) * B [n_out, rank]: the scale is folded in at load
};

struct LayerWeights {
  tensor::Weights wq, wk, wv, wo;  // attention projections
  tensor::Weights gate, up, down;  // SwiGLU feed-forward
  std::vector<float> attn_norm, ffn_norm;
  std::vector<float> bq, bk, bv;         // empty when the arch has no q/k/v biases
  std::array<LowRank, kProjCount> lora;  // by Proj; rank 0 when no adapter touches it
};

struct ModelWeights {
  tensor::Weights token_embd;
  tensor::Weights output;  // token_embd when tied
  std::vector<float> output_norm;
  std::vector<LayerWeights> layers;
  // The layers' packed panels (tensor/quant_dot.hpp), which their Weights point into; empty
  // when the types or this machine have none.
  std::vector<tensor::PackedPages> packed;
};

// Packs every layer projection the integer kernels can read in panels, and releases the
// file's pages of each one packed: from then on every path reads the packed copy, so the
// weights stay in memory once.
void pack_layers(const gguf::File& f, ModelWeights& w);

// Throws meadow::Error "PATH: problem" for a missing tensor or a wrong shape.
ModelWeights bind_weights(const gguf::File& file, const Config& cfg);

}  // namespace meadow::model
