// The transformer layers over a batch of token sequences laid end to end: every matmul
// sees all the batch's tokens at once (weights are read once per batch), attention runs
// per sequence.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "meadow/runtime/model.hpp"
#include "model/weights.hpp"
#include "tensor/ops.hpp"
#include "tensor/thread_pool.hpp"

namespace meadow::model {

// One sequence's slice of the batch.
struct Segment {
  int64_t start = 0;  // first row in the concatenated batch
  int64_t len = 0;    // number of tokens
};

// What a pass reuses when the caller keeps a Workspace (meadow/runtime/model.hpp). Vectors only
// grow.
struct WorkspaceBuffers {
  // run_layers: activations of the batch's tokens
  std::vector<float> x, h, q, k, v, att, gate, up;
  std::vector<float> lora;  // the low-rank products of an adapter (model/lora.hpp)
  std::vector<int32_t> pos;
  std::vector<float> rope_cos, rope_sin;  // the tokens' rope_angles, for every layer
  // The last layer on the rows read alone: which rows, their residual and normed rows
  std::vector<int64_t> keep;
  std::vector<float> xr, hr;
  // run_batch: the batch laid end to end, the rows read, their normed hidden states and logits
  std::vector<int32_t> tokens;
  std::vector<int32_t> types;  // an encoder's token type ids, laid out as tokens
  std::vector<Segment> segs;
  std::vector<int64_t> rows;
  std::vector<float> hidden, normed, logits;
  std::vector<Logits> probe;  // an early exit's reading after a layer
  // Worker threads: a pass runs a few dozen small kernels, and starting threads for each one
  // cost more than the kernels themselves at the default model's size.
  std::unique_ptr<tensor::ThreadPool> pool;
  std::vector<std::vector<float>> scratch;  // per worker: the kernels' temporaries
  tensor::IntScratchArray ints;             // per worker: the integer kernels' buffers
  int n_ints = 0;
  tensor::Threads threads(int n);  // (re)starts the pool when n changes
};

struct PassSpec {
  const PrefixCache* prefix = nullptr;  // cached run: every segment follows this prefix
  int64_t block = 0;  // >0, bidirectional: rows [0, block) of a segment see only themselves
  // Bidirectional, uncached: block-causal mask. Block i is rows [ends[i-1], ends[i]) (rows past
  // the last end form one more block); each block sees itself and every block before it.
  std::vector<int64_t> block_ends;
  PrefixCache* capture = nullptr;  // keep each layer's K/V (single-segment prefix encoding)
  // The rows of the residual stream read after the pass (any order, repeats allowed); null: all.
  // The last layer then computes every row's K/V but the rest only for these rows, so the other
  // rows of the returned stream hold the previous layer's values.
  const std::vector<int64_t>* read_rows = nullptr;
  // Called after each layer but the last with the layers run so far and the residual stream;
  // true stops the pass there (early exit).
  std::function<bool(int64_t layers_run, const std::vector<float>& x)> after_layer;
  tensor::Threads threads;  // with a pool: one per pass, so kernels do not start threads
};

// Embeds the tokens and runs every layer (or until spec.after_layer stops it); returns the
// residual stream [n_tokens, n_embd] (ws.x), exact at spec.read_rows, and sets *layers_run when
// given.
const std::vector<float>& run_layers(const Config& cfg, const ModelWeights& w,
                                     std::span<const int32_t> tokens, std::span<const Segment> segs,
                                     const PassSpec& spec, WorkspaceBuffers& ws,
                                     int64_t* layers_run = nullptr);

// Final norm and output projection of n hidden rows into out [n, cols] where cols is
// n_vocab or vocab_rows.size(); normed is scratch.
void output_logits(const Config& cfg, const ModelWeights& w, const float* hidden, int64_t n,
                   const std::vector<int32_t>& vocab_rows, float* out, tensor::Threads th,
                   std::vector<float>& normed);

}  // namespace meadow::model
