// SIMD kernels chosen at run time (Highway dynamic dispatch): the same binary runs on
// AVX2-only CPUs and uses AVX-512 where present.
#pragma once

#include <cstdint>

#include "tensor/ops.hpp"

namespace meadow::tensor::detail {

// Decodes columns [c0, c0 + nc) of weight rows to float32: output row i (nc floats) is
// weight row rows[i] (or r0 + i when rows is null), for i in [0, nr). c0 and nc must be
// multiples of the type's block size.
void decode_rows(const Weights& w, const int32_t* rows, int64_t r0, int64_t nr, int64_t c0,
                 int64_t nc, float* out);

// y[t * ldy + j] = dot(x[t], weight row rows[j] (or j)) for t < n and j in [j0, j1),
// reading the quantized blocks directly (no full-row float copy).
void dot_rows(const Weights& w, const int32_t* rows, int64_t j0, int64_t j1, const float* x,
              int64_t n, float* y, int64_t ldy);

// Float32 weights w [rows, cols] (row-major, in place): y[t * ldy + j] = dot(x[t], w[j]) for
// t < n and j in [j0, j1), in 4 x 4 register tiles (no packing; for a few activation rows).
void tile_rows_f32(const float* w, int64_t j0, int64_t j1, int64_t cols, const float* x, int64_t n,
                   float* y, int64_t ldy);

float dot_f32(const float* a, const float* b, int64_t n);
void axpy_f32(float a, const float* x, float* y, int64_t n);  // y += a * x
void scale_f32(float a, float* y, int64_t n);                 // y *= a
// out[i] = gate[i] / (1 + exp(-gate[i])) * up[i]
void swiglu_f32(const float* gate, const float* up, float* out, int64_t n);
// In place x = x * Phi(x) (tensor::gelu).
void gelu_f32(float* x, int64_t n);
// In place x = exp(x - max x) / sum, over n values.
void softmax_f32(float* x, int64_t n);
// tensor::rope's rotation (even head_dim <= kRopeMaxHeadDim); neox: pairs (i, i + head_dim / 2),
// else (2i, 2i + 1). The scalar formula's floats exactly.
constexpr int64_t kRopeMaxHeadDim = 512;
void rope_f32(float* x, int64_t n_tokens, int64_t n_heads, int64_t head_dim, const float* cos,
              const float* sin, bool neox);

// Attention of a block of query rows with the rows in the vector lanes (simd_attention.cpp).
// qt: the rows' queries transposed and scaled, qt[d * ld + r] for d < hd, ld a multiple of
// kAttnRowAlign, columns past `rows` zero. Keys and values come in runs (the prefix cache, the
// pass's own), key j of a run at k + j * kv_stride; the first kv_len keys of the runs are read.
// vis[r] (ld of them, as floats): the keys row r sees, a prefix, at least 1 (past `rows`: any).
// Row r's output: out.at + (r / out.group) * out.row_stride + (r % out.group) * out.hd, hd of
// them (hd a multiple of 4). p: kv_len * ld floats and inv: ld floats of scratch.
constexpr int64_t kAttnRowAlign = 16;
struct AttnKv {
  const float* k;
  const float* v;
  int64_t n;
};
struct AttnOut {
  float* at;
  int64_t group, row_stride, hd;
};
void attend_block_f32(const float* qt, int64_t rows, int64_t ld, int64_t hd, const AttnKv* kv,
                      int64_t n_runs, int64_t kv_stride, const float* vis, int64_t kv_len, float* p,
                      float* inv, const AttnOut& out);

// Name of the Highway target the dispatcher picked on this CPU (e.g. "AVX3", "AVX2").
const char* simd_target_name();

}  // namespace meadow::tensor::detail
