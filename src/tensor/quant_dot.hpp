// Integer dot products of quantized weights with activations quantized to int8 per 32-value
// block (one float scale per block, the Q8_0 scheme). Weights and activations both stay small
// integers, so the products run as u8 x i8 quads (AVX-512 VNNI vpdpbusd; AVX2/SSSE3
// vpmaddubsw + vpmaddwd; plain widening arithmetic elsewhere) instead of fp32 FMAs.
//
// Accuracy: block b of x is stored as d_b * q_i with d_b = amax_b / 127 and q_i = round(x_i /
// d_b), so |x_i - d_b q_i| <= d_b / 2 and for a weight row w
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
  std::vector<int8_t> q;            // n * stride
  std::vector<float> lane_scale;    // n * stride / 4: d of the value's block, one per 4 values
  std::vector<float> scaled_sum16;  // n * stride / 16: d * (sum of the 16 q's)
  std::vector<float> block_d;       // n * stride / 32: d of each block
  // The many-token layout (interleave_acts): rows cut into groups of L blocks, L the int32
  // lanes of one vector (the last blocks in groups of 4, on 4-lane vectors); vector j of a
  // group holds values 4j .. 4j+3 of each of its blocks,
  // so one lane accumulates one block's whole dot product in int32 and floats are touched
  // once per 32 values instead of once per 4.
  int64_t group_lanes = 0;         // L; 0 when not interleaved (or on the scalar target)
  int64_t main_bytes = 0;          // bytes per row in full groups of L blocks
  int64_t istride = 0;             // main_bytes + the rest in groups of 4 blocks, zero padded
  std::vector<int32_t> qi;         // n * istride int8 values, stored as int32 words (4 each)
  std::vector<float> block_scale;  // n * istride / 32: d per block
  // n * istride / 32, in block_scale's slots: scaled_sum16 of each block's first and second
  // 16 values, which meet the weights' offsets inside the kernel.
  std::vector<float> block_sum_a, block_sum_b;
  std::vector<int32_t> row;  // interleave_acts' temporary, kept for its capacity
};

// One weight row in the common shape, reused row after row; buffers sized for quant_stride(cols),
// zero padded (reset). The unpackers write the bytes and either (the few-token kernel) a scale
// per 4 values and an offset per 16, or (the interleaved kernel) per 32-value block the scales
// and offsets of its first and second 16 values (equal except for Q6_K).
struct RowBuf {
  std::vector<int32_t> u;       // the bytes u_i
  std::vector<float> scale;     // few-token kernel: per 4 values
  std::vector<float> offset;    // few-token kernel: per 16 values
  std::vector<float> sa, sb;    // per block: scales of values 0-15 and 16-31
  std::vector<float> oa, ob;    // per block: offsets of the same halves
  void reset(int64_t stride) {  // assign keeps the capacity: a warm call allocates nothing
    u.assign(size_t(stride / 4), 0);
    scale.assign(size_t(stride / 4), 0.0f);
    offset.assign(size_t(stride / 16), 0.0f);
    for (auto* v : {&sa, &sb, &oa, &ob}) v->assign(size_t(stride / 32), 0.0f);
  }
};

// A row in the interleaved layout of QuantizedActs::qi, with per-block scales and offsets of
// the first and second 16 values (equal except for Q6_K), in the blocks' lanes.
struct RowBufI {
  std::vector<int32_t> u;  // bytes, interleaved
  std::vector<float> scale_a, scale_b, offset_a, offset_b;
  void reset(int64_t istride) {
    u.assign(size_t(istride / 4), 0);
    for (auto* v : {&scale_a, &scale_b, &offset_a, &offset_b})
      v->assign(size_t(istride / 32), 0.0f);
  }
};

// What one worker of dot_rows_int reuses: a row in the plain layout and up to 4 interleaved
// rows (a tile).
struct RowScratch {
  RowBuf plain;
  RowBufI inter[4];
};

// What the integer path of a pass reuses across its matmuls (Threads::ints): the activations
// (quantized by the calling thread) and one RowScratch per worker.
struct IntScratch {
  QuantizedActs acts;
  RowScratch rows;
};

// From this many tokens the interleaved kernel is used (it pays a gather per weight row).
constexpr int64_t kInterleaveMinTokens = 4;

inline int64_t quant_stride(int64_t cols) {
  return (cols + 63) / 64 * 64;
}

// Quantizes x [n, cols] (cols a multiple of 32) into out, reusing its storage.
void quantize_acts(const float* x, int64_t n, int64_t cols, QuantizedActs& out);

// Adds the interleaved layout to a (quantize_acts first); dot_rows_int then uses it.
void interleave_acts(QuantizedActs& a);

// Whether dot_rows_int reads this weight type.
bool int_dot_supported(gguf::TensorType t);

// y[t * ldy + j] = dot(a row t, weight row rows[j] (or j)) for t < a.n and j in [j0, j1).
// scratch: the worker's reused buffers (null: this call allocates its own).
void dot_rows_int(const Weights& w, const int32_t* rows, int64_t j0, int64_t j1,
                  const QuantizedActs& a, float* y, int64_t ldy, RowScratch* scratch = nullptr);

// Whether one token times Q4_K weights runs the direct kernel (AVX-512 targets), which beats
// the float path there; elsewhere a Q4_K row is unpacked first and one token does not pay.
bool q4_k_direct();

// Name of the Highway target the integer kernels dispatch to (AVX3_DL when VNNI is present).
const char* int_target_name();

}  // namespace meadow::tensor::detail
