// Compute kernels the model runtime is built from. Activations are float32, row-major,
// one row per token. Weights stay in their GGUF type and are read in place.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "meadow/runtime/gguf.hpp"

namespace meadow::tensor {

// A 2-D weight as stored in GGUF: `rows` rows (output features) of `cols` elements each
// (input features, ggml dims[0]), in any supported type.
struct Weights {
  gguf::TensorType type = gguf::TensorType::F32;
  const void* data = nullptr;
  int64_t rows = 0;
  int64_t cols = 0;
  // The same weights in the integer kernel's panel order (tensor::pack_weights), or null. Owned
  // by whoever packed them; every path then reads it instead of data (but gathers of rows).
  const void* packed = nullptr;
};

Weights weights_of(const gguf::TensorInfo& t);  // checks the tensor is 2-D (or 1-D: rows=1)

// A copy of w in the integer kernel's panel order, about the file's size (packed panels,
// tensor/quant_dot.hpp), or null where w's type or this machine's kernels have none. Made once
// at load: with it, an integer matmul skips gathering and transposing w's rows.
// Point w.packed at it while it lives. Its own pages (huge pages where the system gives them:
// fresh memory costs its page faults, a large part of packing a 7B file).
struct PagesDeleter {
  size_t bytes = 0;
  void operator()(uint8_t* p) const;
};
using PackedPages = std::unique_ptr<uint8_t[], PagesDeleter>;
PackedPages pack_weights(const Weights& w);

class ThreadPool;  // tensor/thread_pool.hpp
namespace detail {
struct IntScratch;  // tensor/quant_dot.hpp
}

// The arithmetic of a matmul with quantized weights (Q4_0, Q4_1, Q4_K, Q6_K, Q8_0).
//  Float:   weights decoded to float, fp32 products: x is used as given (exactness tests).
//  Integer: x quantized to int8 per 32-value block (one float scale each, as Q8_0 does; per
//           256 values for Q4_K weights) and multiplied in integers; per row the result moves
//           from the exact product by at most sum over blocks b of (max |x| in b) / 254 *
//           sum_{i in b} |w_i|, plus float rounding (tensor/quant_dot.hpp).
//  Auto:    Integer where it measured faster (docs/measurements.md): weights at least
//           kIntegerMinCols wide (SmolLM2's 576 and up: 1.4x on its decision, 2-3x on 7B
//           shapes) from 4 tokens, and Q4_0 / Q6_K (and Q4_K on AVX-512) at fewer; Float
//           elsewhere. MEADOW_MATMUL=float|int (read once)
//           overrides Auto for a whole run.
// Other weight types (F32, F16, BF16, Q5_*) always take the float path.
enum class MatmulPath { Auto, Float, Integer };

// Work is split over this many threads. Kernels start helper threads per call unless a pool
// is given (recommended for many small calls: it saves ~50 us per call); with a pool, at most
// pool->size() threads are used. OpenBLAS runs single-threaded inside each of our tasks.
struct Threads {
  int n = 1;
  ThreadPool* pool = nullptr;
  // One buffer per worker (n of them) that kernels grow and reuse for their temporaries
  // (attention scores, decoded weight tiles); empty: each call allocates its own.
  std::span<std::vector<float>> scratch{};  // {}: brace-initializing callers need not name it
  MatmulPath matmul = MatmulPath::Auto;     // the path of matmul calls that name none
  // n of them: what the integer path reuses across calls; null: each call allocates its own.
  detail::IntScratch* ints = nullptr;
};

// Buffers the integer kernels reuse across calls, one set per worker (Threads::ints); opaque
// outside the tensor layer.
struct IntScratchDeleter {
  void operator()(detail::IntScratch* p) const;
};
using IntScratchArray = std::unique_ptr<detail::IntScratch[], IntScratchDeleter>;
IntScratchArray make_int_scratch(int workers);

// The narrowest weights (cols) Auto multiplies in integers from 4 tokens.
inline constexpr int64_t kIntegerMinCols = 512;
// Whether a matmul of w at n tokens by `path` takes the integer kernels.
bool takes_integer(const Weights& w, int64_t n, MatmulPath path);

// y = x · Wᵀ : x is [n, cols], y is [n, rows]. Any weight type; x and y must not overlap.
// Float, n < 8: SIMD dot products on the quantized blocks; n >= 8: 256-row tiles decoded to
// float (bounded scratch per thread) and multiplied by single-threaded sgemm, tiles split over
// th. Integer: rows split over th, each unpacked once and multiplied with every token.
void matmul(const Weights& w, const float* x, int64_t n, float* y, Threads th);  // Auto
void matmul(const Weights& w, const float* x, int64_t n, float* y, Threads th, MatmulPath path);
// ys[i] = x · ws[i]ᵀ for weights that read the same input (q, k and v; gate and up), each y as
// matmul writes it (Auto path). When all take the integer kernels, x is quantized once and
// one parallel region covers every matrix's rows; otherwise one matmul each. Same results
// either way, to the bit.
void matmul_shared(std::span<const Weights* const> ws, const float* x, int64_t n,
                   std::span<float* const> ys, Threads th);
// Only the listed weight rows (e.g. the option letters' vocab rows): y is [n, k].
void matmul_rows(const Weights& w, const int32_t* rows, int64_t k, const float* x, int64_t n,
                 float* y, Threads th);  // Auto
void matmul_rows(const Weights& w, const int32_t* rows, int64_t k, const float* x, int64_t n,
                 float* y, Threads th, MatmulPath path);
// y += (x · Aᵀ) · Bᵀ for float32 A [rank, cols] and B [rows, rank] (a LoRA pair): x is
// [n, cols], y [n, rows], scratch holds n * rank floats. Single-threaded: at LoRA ranks it is a
// few % of the matmul it follows.
void add_low_rank(const float* a, const float* b, int64_t rank, int64_t rows, int64_t cols,
                  const float* x, int64_t n, float* y, float* scratch);
// One weight row decoded to float32 (embedding lookup).
void dequantize_row(const Weights& w, int64_t row, float* out);

// y[t] = x[t] / rms(x[t]) * g, for n rows of d; y may be x (in place).
void rmsnorm(const float* x, const float* g, float* y, int64_t n, int64_t d, float eps);
// x[t, i] += b[i]
void add_bias(float* x, const float* b, int64_t n, int64_t d);
// LayerNorm (BERT): y[t] = (x[t] - mean) / sqrt(var + eps) * g + b over each of n rows of d,
// with the biased variance as PyTorch's; mean and variance are summed in double, so eps as
// small as BERT's 1e-12 still counts. y may be x (in place).
void layernorm(const float* x, const float* g, const float* b, float* y, int64_t n, int64_t d,
               float eps);
// The exact GELU of BERT, in place: x * Phi(x) = x / 2 * (1 + erf(x / sqrt 2)), not the tanh
// approximation. Vector lanes evaluate erfc by Abramowitz & Stegun 7.1.26 (absolute error
// under 1.5e-7 in Phi; the negative side takes erfc directly, so it never cancels). Large n is
// split over th.
void gelu(float* x, int64_t n, Threads th);
// out = silu(gate) * up, elementwise over n values; out may be gate or up (in place). With
// threads, large n is split over them (a decision's 30 x 1536 values: 23 us on one core); the
// same floats either way.
void swiglu(const float* gate, const float* up, float* out, int64_t n);
void swiglu(const float* gate, const float* up, float* out, int64_t n, Threads th);

enum class RopeStyle {
  Normal,  // pairs (2i, 2i+1) — llama / llada
  Neox,    // pairs (i, i + d/2) — qwen2 / dream
};
// The rotation of each token's position, cos and sin [n_tokens, head_dim / 2] each, for rope. A
// pass computes them once for all its layers (they were 2-3 % of a SmolLM2 decision per layer).
void rope_angles(const int32_t* pos, int64_t n_tokens, int64_t head_dim, float base, float* cos,
                 float* sin);
// Rotates x [n_tokens, n_heads, head_dim] in place by its tokens' rows of rope_angles.
void rope(float* x, int64_t n_tokens, int64_t n_heads, int64_t head_dim, const float* cos,
          const float* sin, RopeStyle style);

// Which keys each query may see. Query t (global position q0 + t) sees key j when
//   Full:   j < n_kv
//   Causal: j <= q0 + t
//   PrefixOnly rows: used for bidirectional prefix caching; the caller runs the prefix alone.
enum class AttnMask { Full, Causal };

// Scaled dot-product attention with grouped-query heads.
// q: [n_q, n_head, hd]; k, v: [n_kv, n_head_kv, hd]; out: [n_q, n_head, hd].
// q0 is the position of the first query within the key sequence (for Causal).
void attention(const float* q, int64_t n_q, int64_t q0, const float* k, const float* v,
               int64_t n_kv, int64_t n_head, int64_t n_head_kv, int64_t hd, AttnMask mask,
               float* out, Threads th);

// The key sequence in consecutive parts, each [n, n_head_kv, hd] (e.g. a cached prefix, then a
// segment's own rows), attended where they lie: nothing is concatenated. Same result as one
// call over the parts laid end to end (key j of the whole sequence is in the part that holds it).
struct KvPart {
  const float* k = nullptr;
  const float* v = nullptr;
  int64_t n = 0;
};
void attention(const float* q, int64_t n_q, int64_t q0, std::span<const KvPart> kv, int64_t n_head,
               int64_t n_head_kv, int64_t hd, AttnMask mask, float* out, Threads th);

// In-place softmax over n values.
void softmax(float* x, int64_t n);

// One line naming the SIMD target chosen at run time and the BLAS kernel/threads in use.
std::string cpu_report();

// Call first thing in main(). Debian's OpenBLAS may pick a kernel older than the CPU supports
// (e.g. "Prescott" on a VM with AVX-512: ~6x slower sgemm). OpenBLAS reads OPENBLAS_CORETYPE
// only when it initialises, so when the detected core is weaker than the CPU's features allow
// (and the user has not set OPENBLAS_CORETYPE) this re-executes /proc/self/exe with the right
// core set. Returns only when no re-exec happened: true if the core in use matches the CPU,
// false if it is slower and could not be fixed (a one-line warning went to stderr).
bool ensure_fast_blas(int argc, char** argv);

}  // namespace meadow::tensor
