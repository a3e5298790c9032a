// LoRA adapters in llama.cpp's adapter GGUF convention (general.type "adapter", adapter.type
// "lora", adapter.lora.alpha, tensors `<base tensor name>.lora_a` with ne [n_in, r] and
// `.lora_b` with ne [r, n_out]), applied on top of the loaded base model:
//   W' x = W x + (alpha / r) B (A x)      (alpha == 0: scale 1, as llama.cpp reads it)
//
// Applied at run time as the low-rank product, never merged into W: chosen by memory, measured
// on SmolLM2-135M (Q4_1 layers) with a rank-16 adapter on all seven projections. A merge
// cannot keep the base quantized (rounding W + s B A back to Q4_1 errs by 1.2x the rms of
// s B A itself for the reference test's adapter), so it means float32 copies of the adapted
// matrices: peak RSS 471 MB for a 128-token forward (518 MB in `bench`), over meadow-small's
// 400 MB target, beside 124 MB for the base alone and 144 MB with the run-time adapter (its
// float32 pairs are ~20 MB). The price is time: r (n_in + n_out) extra multiply-adds per
// token and matrix, 4.6 % of the layers' work in theory, +4-8 % CPU time per forward measured
// (4 and 128 tokens, 1 thread), where the merged float32 model ran 2-10 % faster than the
// base.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "meadow/runtime/gguf.hpp"
#include "meadow/runtime/model.hpp"
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

// The same for several weights that read one x (q, k, v; gate, up): their products in one
// tensor::matmul_shared, then each LoRA pair. Equal to project() on each, to the bit.
struct Projection {
  const tensor::Weights* w;
  const LowRank* lr;
  float* y;
};
void project_shared(std::span<const Projection> ps, const float* x, int64_t n, tensor::Threads th,
                    std::vector<float>& scratch);

}  // namespace meadow::model
