// Integer dot products of quantized weights with activations quantized to int8 per 32-value
// block (one float scale per block, the Q8_0 scheme; per 256 values for Q4_K weights). Weights and
// activations both stay small integers, so the products run as u8 x i8 quads (AVX-512 VNNI
// vpdpbusd; AVX2/SSSE3 vpmaddubsw + vpmaddwd; plain widening arithmetic elsewhere) instead of fp32
// FMAs.
//
// Accuracy: block b of x (32 values; 256 for Q4_K weights, see act_span) is stored as d_b * q_i
// with d_b = amax_b / 127 and q_i = round(x_i / d_b), so |x_i - d_b q_i| <= d_b / 2 and for a
// weight row w
//   |dot_int - dot(w, x)| <= sum_b (amax_b / 254) * sum_{i in b} |w_i|   (+ float rounding).
// tests/tensor/quant_dot_test.cpp checks that bound and exact agreement with a scalar reference.
#pragma once

#include <cstdint>
#include <vector>

#include "tensor/ops.hpp"

namespace meadow::tensor::detail {

// n rows of activations, each padded to `stride` values (a multiple of 64, the widest vector
// of int8) with zeros, so kernels never need a tail loop.
struct QuantizedActs {
  int64_t n = 0;
  int64_t cols = 0;
  int64_t stride = 0;
  int64_t span = 32;      // values sharing one scale (act_span); the per-32 arrays repeat it
  std::vector<int8_t> q;  // n * stride
  std::vector<float> lane_scale;    // n * stride / 4: d of the value's block, one per 4 values
  std::vector<float> scaled_sum16;  // n * stride / 16: d * (sum of the 16 q's)
  std::vector<float> block_d;       // n * stride / 32: d of each block
  // The panel kernel's layout (quantize_acts with grouped): tokens in groups of kTokenGroup (the
  // last group smaller); in a group of g from token t, quad j of block b of token t + k at t *
  // stride / 4 + (8 b + j) g + k, and the block's d and two half sums at t * stride / 32 + b g + k,
  // so a tile of tokens reads each step at fixed offsets; gsum the two half sums added (one
  // broadcast operand for all types but Q6_K).
  std::vector<int32_t> gq;
  std::vector<float> gd, gsa, gsb, gsum;
  bool grouped = false;  // whether this call wrote the grouped layout
};

constexpr int64_t kTokenGroup = 8;

// One weight row in the common shape (the few-token kernel), reused row after row; buffers
// sized for quant_stride(cols), zero padded (reset). The unpackers write the bytes, a scale per
// 4 values and an offset per 16.
struct RowBuf {
  std::vector<int32_t> u;       // the bytes u_i
  std::vector<float> scale;     // per 4 values
  std::vector<float> offset;    // per 16 values
  void reset(int64_t stride) {  // assign keeps the capacity: a warm call allocates nothing
    u.assign(size_t(stride / 4), 0);
    scale.assign(size_t(stride / 4), 0.0f);
    offset.assign(size_t(stride / 16), 0.0f);
  }
};

// Up to 16 weight rows side by side, a chunk of columns at a time (the many-token kernel,
// quant_dot.cpp): vector j of block b holds values 4j .. 4j+3 of the block in each row, one row
// per int32 lane; per block and lane a scale and an offset for each half (sb, ob: Q6_K).
struct Panel {
  std::vector<int32_t> u;
  std::vector<float> sa, sb, oa, ob;
  std::vector<float> acc;  // tokens x lanes: sums over the column chunks
  std::vector<float> sm;   // Q6_K: a super-block's scales, row by row
};

// What one worker of dot_rows_int reuses: a row for the few-token kernel, a panel for the
// many-token one.
struct RowScratch {
  RowBuf plain;
  Panel panel;
};

// Columns of a panel prepared at once: a chunk of the panel and of the tokens' values stay in L1.
constexpr int64_t kPanelCols = 512;
static_assert(kPanelCols % 256 == 0, "a chunk starts on an activation span's boundary");
constexpr int64_t kPanelMaxLanes = 16;

// Grows a worker's buffers for n tokens of cols columns. The calling thread does it for every
// worker before a parallel region, so which worker happens to take which rows (handed out
// dynamically) never decides whether a warm call allocates.
void reserve_rows(RowScratch& rs, int64_t n, int64_t cols);

// What the integer path of a pass reuses across its matmuls (Threads::ints): the activations
// (quantized by the calling thread) and one RowScratch per worker.
struct IntScratch {
  QuantizedActs acts;
  RowScratch rows;
};

// From this many tokens the panel kernel is used: preparing a panel costs about as much as
// multiplying it with 3-4 tokens.
constexpr int64_t kPanelMinTokens = 4;

inline int64_t quant_stride(int64_t cols) {
  return (cols + 63) / 64 * 64;
}

// Values per activation scale for weights of type t: 256 for Q4_K (its super-block; llama.cpp's
// Q8_K activations for K-quants), so the panel kernel applies the activation scale once per 8
// blocks instead of once per block: a 7B-shaped Q4_K decision takes 0.90-0.95x the time, and
// the error bound grows with the amax over 256 values instead of 32. 32 for every other type.
inline int64_t act_span(gguf::TensorType t) {
  return t == gguf::TensorType::Q4_K ? 256 : 32;
}

// Quantizes x [n, cols] (cols a multiple of 32) into out, reusing its storage, on th's
// workers, one scale per `span` values (32 or 256; a row's last span may be shorter); grouped:
// also in the panel kernel's layout (gq, gd, gsa, gsb, gsum).
void quantize_acts(const float* x, int64_t n, int64_t cols, QuantizedActs& out,
                   Threads th = Threads{}, bool grouped = false, int64_t span = 32);

// Whether dot_rows_int reads this weight type.
bool int_dot_supported(gguf::TensorType t);

// y[t * ldy + j] = dot(a row t, weight row rows[j] (or j)) for t < a.n and j in [j0, j1).
// scratch: the worker's reused buffers (null: this call allocates its own).
void dot_rows_int(const Weights& w, const int32_t* rows, int64_t j0, int64_t j1,
                  const QuantizedActs& a, float* y, int64_t ldy, RowScratch* scratch = nullptr);

// Whether 1-3 tokens times Q4_0, Q4_1, Q4_K or Q8_0 weights run the direct kernels (AVX-512
// targets: blocks read in place, no unpacking), which beat the float path there; elsewhere a
// row is unpacked first and so few tokens do not pay.
bool direct_few_tokens();

// Packed panels: weights copied once, at load, into the panel kernel's layout (rows side by
// side in groups of packed_group_rows()), so that a call no longer gathers and transposes rows;
// the file's size. Q4_0 and Q4_1 on SIMD targets (quant_dot.cpp says why not others).
// packed_bytes: the copy's size, 0 where there is none. pack_rows: every row into out (the last
// group repeats the last row). The weights' `packed` then points to it, and every integer
// product reads it: the panel kernel serves 1-3 tokens too.
int64_t packed_bytes(const Weights& w);
int64_t packed_group_rows();
void pack_rows(const Weights& w, void* out);
// Rows [r0, r0 + nr), columns [c0, c0 + nc) (whole blocks) of w.packed to float, transposed:
// out[c * ld + r] is row r0 + r at column c0 + c. The file's values to the bit (the float path
// reads packed weights through it, and sgemm takes the transposed tile as is).
void decode_packed(const Weights& w, int64_t r0, int64_t nr, int64_t c0, int64_t nc, float* out,
                   int64_t ld);

// Name of the Highway target the integer kernels dispatch to (AVX3_DL when VNNI is present).
const char* int_target_name();

}  // namespace meadow::tensor::detail
