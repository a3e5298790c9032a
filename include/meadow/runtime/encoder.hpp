// BERT-family encoders (all-MiniLM-L6-v2 and the readers fine-tuned from it) loaded from GGUF
// in llama.cpp's `bert` conventions (tools/convert_bert.py writes them): architecture "bert",
// keys bert.embedding_length, .block_count, .attention.head_count, .feed_forward_length,
// .attention.layer_norm_epsilon, .pooling_type; tensors token_embd, token_types, position_embd,
// token_embd_norm and per layer attn_q/k/v/output, attn_output_norm, ffn_up/down,
// layer_output_norm, each with a bias.
//
// The forward pass is BERT's: embeddings (word + absolute position + token type) -> LayerNorm;
// each layer: bidirectional self-attention with biases, + residual, LayerNorm (post-norm),
// feed-forward with the exact (erf) GELU, + residual, LayerNorm. It returns the last hidden
// state of every token (no output head: an encoder has no logits). Sequences of a batch share
// every matmul and attend only within themselves; there is no padding.
//
// Extra tensors (a fine-tuned reader's heads, named `reader.*`) and extra metadata keys are
// accepted and left alone: find_tensor()/tensor_f32() give them to the code that uses them.
// Weights are read in place from the memory-mapped file, in any type the runtime reads
// (F32, F16, BF16, Q8_0, ...); hidden states equal transformers' BertModel within 1e-4 x
// max |value| on all-MiniLM-L6-v2 (tests/reference/minilm_reference_test.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "meadow/runtime/gguf.hpp"
#include "meadow/runtime/model.hpp"

namespace meadow::model {

// llama.cpp's {arch}.pooling_type: how a sentence embedding is read from the hidden states.
enum class Pooling { None = 0, Mean = 1, Cls = 2 };

struct EncoderConfig {
  int64_t n_embd = 0;   // bert.embedding_length
  int64_t n_layer = 0;  // bert.block_count
  int64_t n_head = 0;   // bert.attention.head_count
  int64_t head_dim = 0;
  int64_t n_ff = 0;         // bert.feed_forward_length
  int64_t n_vocab = 0;      // rows of token_embd.weight
  int64_t n_ctx = 0;        // rows of position_embd.weight: the longest sequence
  int64_t n_types = 0;      // rows of token_types.weight (2 for BERT: segments A and B)
  float norm_eps = 1e-12f;  // bert.attention.layer_norm_epsilon
  Pooling pooling = Pooling::None;
};

// Whether the file is an encoder this API loads (general.architecture "bert").
bool is_encoder(const gguf::File& file);

// One sequence of a batch.
struct EncoderInput {
  std::vector<int32_t> tokens;
  std::vector<int32_t> types;  // a token type id per token; empty: all 0 (one segment)
};

// The last hidden states of one sequence: rows = its tokens, cols = n_embd.
struct Hidden {
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<float> data;
  const float* row(int64_t i) const { return data.data() + i * cols; }
};

struct EncodeOptions {
  int threads = 1;                 // at most kMaxThreads
  Workspace* workspace = nullptr;  // reused across calls (one call at a time); none: allocate
};

struct EncoderWeights;  // private (src/model/encoder_weights.hpp)

class Encoder {
 public:
  // Opens (mmaps) and validates the file. Throws meadow::Error "PATH: problem" (not a bert
  // file, a missing key or tensor, a wrong shape).
  static Encoder load(const std::string& path);
  explicit Encoder(gguf::File file);
  Encoder(Encoder&&) noexcept;
  Encoder& operator=(Encoder&&) noexcept;
  ~Encoder();

  const EncoderConfig& config() const { return cfg_; }
  const gguf::File& file() const { return *file_; }

  // Hidden states of every sequence. Throws meadow::Error for a token or type id out of range,
  // a types vector of another length than tokens, or a sequence longer than n_ctx.
  std::vector<Hidden> encode(const std::vector<EncoderInput>& batch,
                             const EncodeOptions& opts = {}) const;
  // The same into out (resized to the batch; each Hidden's storage reused).
  void encode(const std::vector<EncoderInput>& batch, const EncodeOptions& opts,
              std::vector<Hidden>& out) const;

  // A tensor of the file by name (an extra head too), or nullptr. Its data is in the mapping.
  const gguf::TensorInfo* find_tensor(std::string_view name) const;
  // That tensor decoded to float32, row-major (dims[0] the row length); throws meadow::Error
  // when it is absent or its dims (ggml order) are not `dims`.
  std::vector<float> tensor_f32(std::string_view name, const std::vector<uint64_t>& dims) const;

 private:
  std::unique_ptr<gguf::File> file_;
  EncoderConfig cfg_;
  std::unique_ptr<EncoderWeights> w_;
};

// The mean of the rows (sentence-transformers' mean pooling of one unpadded sequence), n_embd
// values; zeros for a sequence of no tokens.
std::vector<float> mean_pool(const Hidden& h);
void mean_pool(const Hidden& h, std::span<float> out);  // out.size() must be h.cols

}  // namespace meadow::model
