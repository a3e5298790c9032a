// y = x · Wᵀ for weights of any GGUF type. Two strategies:
//  - few tokens (decode, option-letter rows): SIMD dot products straight on the quantized
//    blocks; the weights are read once and memory bandwidth is the limit.
//  - many tokens: decode panels of W to float32 (bounded scratch, in parallel) and hand each
//    panel to OpenBLAS sgemm, which is compute-bound and far faster than any dot loop.
#include <cblas.h>

#include <algorithm>
#include <string>
#include <vector>

#include "meadow/error.hpp"
#include "tensor/blas_core.hpp"
#include "tensor/ops.hpp"
#include "tensor/parallel.hpp"
#include "tensor/quant_blocks.hpp"
#include "tensor/simd_kernels.hpp"

namespace meadow::tensor {
namespace {

constexpr int64_t kGemmMinTokens = 8;      // below this, dot products beat decode + sgemm
constexpr int64_t kPanelFloats = 1 << 20;  // 4 MiB of decoded weights per panel

void check_weights(const Weights& w) {
  const detail::BlockGeometry g = detail::block_geometry(w.type);
  if (g.elems == 0) throw Error("matmul: unsupported weight type");
  if (!w.data || w.rows <= 0 || w.cols <= 0 || w.cols % g.elems != 0) {
    throw Error("matmul: bad weights (" + std::to_string(w.rows) + " x " + std::to_string(w.cols) +
                ")");
  }
}

void dot_path(const Weights& w, const int32_t* rows, int64_t k, const float* x, int64_t n, float* y,
              Threads th) {
  const int64_t grain = std::max<int64_t>(16, k / (4 * std::max(th.n, 1)));
  detail::parallel_for(k, grain, th.n, [&](int64_t b, int64_t e, int) {
    detail::dot_rows(w, rows, b, e, x, n, y, k);
  });
}

// Panels of weight rows decoded to float (split over our threads), then one sgemm per panel
// using OpenBLAS's threads. Scratch is one panel, never the whole matrix.
void gemm_path(const Weights& w, const int32_t* rows, int64_t k, const float* x, int64_t n,
               float* y, Threads th) {
  const int64_t panel = std::min(k, std::max<int64_t>(16, kPanelFloats / w.cols / 16 * 16));
  std::vector<float> scratch(static_cast<size_t>(panel * w.cols));
  for (int64_t p0 = 0; p0 < k; p0 += panel) {
    const int64_t np = std::min(panel, k - p0);
    const int64_t grain = std::max<int64_t>(1, (np + 2 * th.n - 1) / (2 * th.n));
    detail::parallel_for(np, grain, th.n, [&](int64_t b, int64_t e, int) {
      detail::decode_rows(w, rows ? rows + p0 + b : nullptr, p0 + b, e - b,
                          scratch.data() + b * w.cols);
    });
    detail::set_blas_threads(th.n);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(n), int(np), int(w.cols), 1.0f, x,
                int(w.cols), scratch.data(), int(w.cols), 0.0f, y + p0, int(k));
  }
}

void product(const Weights& w, const int32_t* rows, int64_t k, const float* x, int64_t n, float* y,
             Threads th) {
  check_weights(w);
  if (n <= 0 || k <= 0) return;
  if (w.type == gguf::TensorType::F32 && !rows) {  // already float: straight to BLAS
    detail::set_blas_threads(th.n);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(n), int(w.rows), int(w.cols), 1.0f, x,
                int(w.cols), static_cast<const float*>(w.data), int(w.cols), 0.0f, y, int(w.rows));
    return;
  }
  if (n < kGemmMinTokens) return dot_path(w, rows, k, x, n, y, th);
  gemm_path(w, rows, k, x, n, y, th);
}

}  // namespace

void matmul(const Weights& w, const float* x, int64_t n, float* y, Threads th) {
  product(w, nullptr, w.rows, x, n, y, th);
}

void matmul_rows(const Weights& w, const int32_t* rows, int64_t k, const float* x, int64_t n,
                 float* y, Threads th) {
  check_weights(w);
  for (int64_t i = 0; i < k; ++i) {
    if (rows[i] < 0 || rows[i] >= w.rows) {
      throw Error("matmul_rows: row " + std::to_string(rows[i]) + " out of range [0, " +
                  std::to_string(w.rows) + ")");
    }
  }
  product(w, rows, k, x, n, y, th);
}

void dequantize_row(const Weights& w, int64_t row, float* out) {
  check_weights(w);
  if (row < 0 || row >= w.rows) {
    throw Error("dequantize_row: row " + std::to_string(row) + " out of range");
  }
  detail::decode_rows(w, nullptr, row, 1, out);
}

}  // namespace meadow::tensor
