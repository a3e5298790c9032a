// LoRA adapters in llama.cpp's adapter GGUF convention (general.type "adapter", adapter.type
// "lora", adapter.lora.alpha, tensors `<base tensor name>.lora_a` with ne [n_in, r] and
// `.lora_b` with ne [r, n_out]), applied on top of the loaded base model:
//   W' x = W x + (alpha / r) B (A x)      (alpha == 0: scale 1, as llama.cpp reads it)
//
// Applied at run time as the low-rank product, never merged into W. The base layers stay
// quantized and memory-mapped; a merge cannot: W + s B A rounded back to Q4_1 would change
// the model by more than a fine-tune's delta, so merging means float32 copies of every
// adapted matrix, ~425 MB for SmolLM2-135M (all seven projections), over meadow-small's
// 400 MB peak-RSS target by itself. The low-rank path costs r (n_in + n_out) multiply-adds
// per token and matrix, ~4.6 % of the layers' work at r = 16 for SmolLM2, and keeps only
// the pairs in memory (~20 MB of float32 at r = 16).
#pragma once

#include <cstdint>
#include <vector>

#include "meadow/gguf.hpp"
#include "meadow/model.hpp"
#include "model/weights.hpp"
#include "tensor/ops.hpp"

namespace meadow::model {

// Reads and validates the adapter against the bound base weights and stores each pair in its
// layer's `lora` slot. Every problem is one meadow::Error naming the adapter file: not an
// adapter, not a LoRA, missing or non-finite alpha, another architecture, an unpaired
// lora_a / lora_b, a name matching no (adaptable) tensor of the model, wrong shapes, ranks of
// a and b that differ, non-finite values.
void attach_lora(const gguf::File& adapter, const Config& cfg, const gguf::File& base,
                 ModelWeights& w);

// y = x · Wᵀ, plus (x · Aᵀ) · Bᵀ when lr is set. x is [n, w.cols], y [n, w.rows]; scratch is
// reused between calls.
void project(const tensor::Weights& w, const LowRank& lr, const float* x, int64_t n, float* y,
             tensor::Threads th, std::vector<float>& scratch);

}  // namespace meadow::model
