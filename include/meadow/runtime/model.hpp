// The transformer runtime: loads `dream`, `llada` (bidirectional, masked diffusion) and
// `qwen2`, `llama` (causal) GGUF models with llama.cpp's key and tensor names and runs
// batched forward passes on the CPU, returning only the logits asked for.
//
// Weights are read in place from the memory-mapped file (never copied or dequantized as a
// whole); only 1-D tensors (norm weights, biases) are decoded into small float vectors.
//
// LoRA. `Model::load(path, lora_path)` also reads a LoRA adapter in llama.cpp's adapter GGUF
// convention (general.type "adapter", adapter.type "lora", adapter.lora.alpha, tensors
// `blk.N.attn_q.weight.lora_a` / `.lora_b` ...) made for this base (same architecture and
// shapes; train/small/export_adapter.py writes one from a peft LoRA). Every adapted
// projection then computes W x + (alpha / r) B (A x), in every entry point below (uncached,
// prefix encoding and cached runs alike). The base stays quantized and mapped; the pairs are
// kept as float32 (src/model/lora.hpp says why it is not merged).
//
// Positions. Every position in this API is an index into the FULL token sequence of one
// request: prefix + suffix for cached runs. Logits row r is the model's output at token r.
// Dream-family models are trained with shifted logits (row r predicts token r+1), so to read
// the prediction for the token at position p use `logits_row_for(p)`.
//
// Prefix cache and attention masks. `encode_prefix` runs the prefix on its own and keeps each
// layer's K and V; `run_cached` then runs suffixes against it. That changes nothing for causal
// archs (a prefix token never sees later tokens anyway): cached == uncached. For
// bidirectional archs it means the PREFIX ATTENDS ONLY TO ITSELF, while suffix tokens attend
// to prefix + suffix. That is a different mask from the model's natural full attention, so:
//   - `run(batch, opts, Mask::Prefix, P)` computes exactly that block mask in one uncached
//     pass (it must equal the cached run; tests check it against a NumPy reference), and
//   - `run(batch, opts)` (Mask::Natural) is the plain full-bidirectional pass, for measuring
//     how far the cached answer is from the exact one.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "meadow/runtime/gguf.hpp"

namespace meadow::model {

// The most threads a model pass runs on. Every entry point (the CLI's --threads, the Python
// bindings, MindOptions, GenerateOptions, the server) is held to it by the pass itself
// (a larger count is a meadow::Error, never an attempt to start that many threads).
inline constexpr int kMaxThreads = 256;

enum class Arch { Dream, Llada, Qwen2, Llama };
const char* arch_name(Arch a);

struct Config {
  Arch arch = Arch::Llama;
  int64_t n_embd = 0;          // {arch}.embedding_length
  int64_t n_layer = 0;         // {arch}.block_count
  int64_t n_head = 0;          // {arch}.attention.head_count
  int64_t n_head_kv = 0;       // {arch}.attention.head_count_kv (defaults to n_head)
  int64_t head_dim = 0;        // {arch}.attention.key_length, else n_embd / n_head
  int64_t n_ff = 0;            // {arch}.feed_forward_length
  int64_t n_vocab = 0;         // rows of token_embd.weight
  int64_t n_ctx = 0;           // {arch}.context_length
  float rope_base = 10000.0f;  // {arch}.rope.freq_base
  float norm_eps = 1e-6f;      // {arch}.attention.layer_norm_rms_epsilon
  bool causal = true;          // false for dream / llada ({arch}.attention.causal)
  bool shift_logits = false;   // dream: row i predicts token i+1 (diffusion.shift_logits)
  bool tied_output = false;    // no output.weight: token_embd.weight is reused
  bool qkv_bias = false;       // attn_q/k/v.bias present
  int32_t mask_id = -1;        // tokenizer.ggml.mask_token_id; -1 when absent
};

// Reads and validates the hyper-parameters and the tensor table (names, shapes, types).
// Throws meadow::Error "PATH: problem" (unknown architecture, missing key or tensor, wrong
// shape).
Config read_config(const gguf::File& file);

// Attention pattern of an uncached run.
enum class Mask {
  Natural,  // the architecture's own: causal (qwen2, llama) or full (dream, llada)
  Prefix,   // bidirectional archs: tokens [0, prefix_len) see only each other, later tokens
            // see everything — what a prefix-cached run computes. Causal archs: = Natural.
};

// One request of a batch.
struct Sequence {
  std::vector<int32_t> tokens;     // token ids (the suffix only, in a cached run)
  std::vector<int64_t> positions;  // logits rows to return, indices into the full sequence
};

struct Logits;

// Early exit: after each layer but the last, the pass reads every request's asked positions
// through the final norm and the output head, over `vocab_rows` only (e.g. the option
// letters), and asks `stop`; true ends the pass there, and the logits returned are that
// layer's (Logits::layers says how many ran). The intermediate layers were not trained for
// the head: the accuracy this costs is the caller's to measure.
struct EarlyExit {
  std::vector<int32_t> vocab_rows{};
  std::function<bool(int64_t layers_run, const std::vector<Logits>& probe)> stop;
};

struct WorkspaceBuffers;  // private (src/model/forward.hpp)

// Memory a pass reuses: activations, attention scores, the batch's layout and the worker
// threads. Give the same Workspace to successive runs (RunOptions::workspace), one run at a
// time: once it has grown to the largest pass, a cached run allocates nothing but its result
// (nothing at all with the run_cached overload that fills a caller's vector).
struct Workspace {
  Workspace();
  ~Workspace();
  Workspace(Workspace&&) noexcept;
  Workspace& operator=(Workspace&&) noexcept;
  std::unique_ptr<WorkspaceBuffers> buffers;
};

// How quantized weights are multiplied. Auto: in integers (activations quantized to int8 per
// 32 values) where that measured faster, i.e. weights at least 512 wide (SmolLM2 and up), in
// float elsewhere (float32 weights always); Float: always float (exact to the decoded weights);
// Integer: integers wherever the type has kernels. MEADOW_MATMUL=float|int overrides Auto.
enum class Arithmetic { Auto, Float, Integer };

struct RunOptions {
  int threads = 1;
  Arithmetic arithmetic = Arithmetic::Auto;
  Workspace* workspace = nullptr;  // none: each run allocates its own
  // Empty: every vocabulary row. Otherwise only these vocabulary rows, in this order (e.g.
  // the option letters' token ids); the logits matrix then has vocab_rows.size() columns.
  std::vector<int32_t> vocab_rows{};
  const EarlyExit* early_exit = nullptr;  // uncached and cached runs; not prefix encoding
};

// Logits of one request: rows = positions.size(), cols = vocabulary (or vocab_rows) size.
struct Logits {
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<float> data;
  int64_t layers = 0;  // layers the pass ran (all of them unless an early exit stopped it)
  const float* row(int64_t i) const { return data.data() + i * cols; }
};

// K/V of an encoded prefix, per layer, after RoPE. Made by Model::encode_prefix.
struct PrefixCache {
  std::vector<int32_t> tokens;
  std::vector<std::vector<float>> k;  // [layer][n_tokens * n_head_kv * head_dim]
  std::vector<std::vector<float>> v;
  int64_t size() const { return static_cast<int64_t>(tokens.size()); }
};

struct LayerWeights;  // private (src/model/weights.hpp)
struct ModelWeights;

class Model {
 public:
  // Opens (mmaps) and validates the file; with a lora_path, reads, validates and applies that
  // adapter too. Throws meadow::Error naming the file and problem (one line).
  static Model load(const std::string& path, const std::string& lora_path = "");
  explicit Model(gguf::File file);
  Model(gguf::File file, const gguf::File& adapter);
  Model(Model&&) noexcept;
  Model& operator=(Model&&) noexcept;
  ~Model();

  const Config& config() const { return cfg_; }
  const gguf::File& file() const { return *file_; }
  const std::string& lora_path() const { return lora_path_; }  // "" without an adapter

  // Row of the logits to read for the prediction of the token at position p: p - 1 for
  // shifted (dream) models (row 0 for p = 0, as Dream does), p otherwise.
  int64_t logits_row_for(int64_t p) const;

  // Uncached forward of every sequence of the batch (their tokens share each matmul).
  // With Mask::Prefix, prefix_len applies to every sequence.
  std::vector<Logits> run(const std::vector<Sequence>& batch, const RunOptions& opts,
                          Mask mask = Mask::Natural, int64_t prefix_len = 0) const;

  // Uncached pass with a block-causal mask (bidirectional archs; causal archs: the natural
  // mask): block i is tokens [block_ends[i-1], block_ends[i]) and sees itself and the blocks
  // before it. The attention block-wise generation computes with its cache
  // (meadow/runtime/generate.hpp), in one pass: the reference its cached path is tested against.
  std::vector<Logits> run_block_causal(const std::vector<Sequence>& batch, const RunOptions& opts,
                                       std::vector<int64_t> block_ends) const;

  // Runs the prefix alone (natural mask within it) and keeps every layer's K/V.
  PrefixCache encode_prefix(std::span<const int32_t> tokens, int threads = 1,
                            Arithmetic arithmetic = Arithmetic::Auto) const;

  // Whether a pass of n tokens by `arithmetic` multiplies any layer's weights in integers.
  bool uses_integers(int64_t n, Arithmetic arithmetic = Arithmetic::Auto) const;

  // Runs each suffix after the cached prefix. Positions are indices into prefix + suffix
  // and must be >= prefix size (the prefix's own logits are not kept).
  std::vector<Logits> run_cached(const PrefixCache& prefix, const std::vector<Sequence>& batch,
                                 const RunOptions& opts) const;
  // The same into out (resized to the batch; each Logits' storage reused).
  void run_cached(const PrefixCache& prefix, const std::vector<Sequence>& batch,
                  const RunOptions& opts, std::vector<Logits>& out) const;

  // Runs seq.tokens after the cache (as run_cached; an empty cache is no prefix) and appends
  // their K/V to it, so the next call continues after them: causal generation token by token,
  // and block diffusion committing a finished block. Returns the logits of seq.positions.
  Logits extend(PrefixCache& cache, const Sequence& seq, const RunOptions& opts) const;

 private:
  std::unique_ptr<gguf::File> file_;
  Config cfg_;
  std::unique_ptr<ModelWeights> w_;
  std::string lora_path_;
};

// Number of weights (elements of every tensor) in the file.
uint64_t parameter_count(const gguf::File& file);

}  // namespace meadow::model
